#!/usr/bin/env python3
"""NetworkX as a peer of fabricx (issue #33): every shipped spec exported
to GraphML and GML is read with NetworkX (Debian's python3-networkx), and
what NetworkX computes on its own from the file must equal what fabricx
reports for the spec:

  - vertex, device, switch, CPU and physical-link counts (metrics --json);
  - the hop histogram between devices, from NetworkX's own breadth-first
    searches under the file's relay rule (switches relay; devices and CPUs
    only where `devices_relay` / `cpus_relay` say so);
  - the maximum flow between the first half of the devices and the rest,
    NetworkX's max-flow on link bandwidths against fabricx's
    `metrics --cut device=0-(n/2-1):rest` (max_flow_Bps).

Usage: networkx_check.py FABRICX SPEC...   (exit 1 on the first mismatch)
"""
import json
import os
import subprocess
import sys
import tempfile

import networkx as nx

MAX_VERTICES = 2100   # NetworkX searches in pure Python: each spec in seconds


def run(*args):
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return out


def relays(g, v):
    t = g.nodes[v]["type"]
    if t == "switch":
        return True
    if t == "device":
        return bool(g.graph.get("devices_relay"))
    return bool(g.graph.get("cpus_relay"))


def hop_histogram(g, devices):
    """Ordered device pairs by hops: a path may pass only through relays."""
    hist = {}
    simple = nx.Graph(g)
    for s in devices:
        dist = {s: 0}
        frontier = [s]
        while frontier:
            nxt = []
            for u in frontier:
                if u != s and not relays(simple, u):
                    continue
                for w in simple.neighbors(u):
                    if w not in dist:
                        dist[w] = dist[u] + 1
                        nxt.append(w)
            frontier = nxt
        for t in devices:
            if t != s and t in dist:
                hist[dist[t]] = hist.get(dist[t], 0) + 1
    return hist


def max_flow(g, side_a, side_b):
    """Max flow between two device sets over the links' bandwidths (each
    physical link carries its bandwidth each way); only relays forward."""
    d = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        bw = float(data["bandwidth_Bps"])
        for x, y in ((u, v), (v, u)):
            if d.has_edge(x, y):
                d[x][y]["capacity"] += bw
            else:
                d.add_edge(x, y, capacity=bw)
    # a vertex that does not relay may only send (side a) or receive (side
    # b): its other edges are removed
    for v in list(d.nodes):
        if relays(g, v):
            continue
        if v in side_a:
            d.remove_edges_from(list(d.in_edges(v)))
        elif v in side_b:
            d.remove_edges_from(list(d.out_edges(v)))
        else:
            d.remove_edges_from(list(d.in_edges(v)) + list(d.out_edges(v)))
    for v in side_a:
        d.add_edge("SRC", v, capacity=float("inf"))
    for v in side_b:
        d.add_edge(v, "DST", capacity=float("inf"))
    return nx.maximum_flow_value(d, "SRC", "DST")


def check(fabricx, spec, tmp):
    m = json.loads(run(fabricx, "metrics", spec, "--json"))
    counts = m
    nv = sum(counts.get(k, 0) for k in ("devices", "switches", "cpus"))
    if nv > MAX_VERTICES:
        print(f"skip {spec}: {nv} vertices (over {MAX_VERTICES} for NetworkX)")
        return True
    name = os.path.basename(spec)
    gml_path = os.path.join(tmp, name + ".gml")
    xml_path = os.path.join(tmp, name + ".graphml")
    run(fabricx, "export", spec, "--to", "graphml", "-o", xml_path)
    run(fabricx, "export", spec, "--to", "gml", "-o", gml_path)
    ok = True
    for label, g in (("graphml", nx.MultiGraph(nx.read_graphml(xml_path))),
                     ("gml", nx.MultiGraph(nx.read_gml(gml_path)))):
        if label == "gml":   # GML's node keys are the labels; types as GraphML's
            g.graph["devices_relay"] = g.graph.get("devices_relay", 0) == 1
            g.graph["cpus_relay"] = g.graph.get("cpus_relay", 0) == 1
        # fabricx measures the degraded fabric: what the file marks failed goes
        dead = [(u, v, k) for u, v, k, d in g.edges(keys=True, data=True)
                if d.get("failed") in (True, 1)]
        g.remove_edges_from(dead)
        failed_v = [v for v, d in g.nodes(data=True) if d.get("failed") in (True, 1)]
        types = {}
        links_failed = len(dead)   # counts are of the intact fabric
        for v, data in g.nodes(data=True):
            types[data["type"]] = types.get(data["type"], 0) + 1
        want = {"devices": counts["devices"], "switches": counts.get("switches", 0),
                "cpus": counts.get("cpus", 0), "links": counts["links"]}
        got = {"devices": types.get("device", 0), "switches": types.get("switch", 0),
               "cpus": types.get("cpu", 0), "links": g.number_of_edges() + links_failed}
        if want != got:
            print(f"FAIL {spec} {label}: counts {got} != fabricx {want}")
            ok = False
            continue
        g.remove_nodes_from(failed_v)
        devices = [v for v, d in g.nodes(data=True) if d["type"] == "device"]
        if label == "graphml":
            devices.sort(key=lambda v: int(v[1:]))   # "n0", "n1", ...: device order
        fx_hist = {h["hops"]: h["pairs"] for h in m["hop_histogram"]}
        # a composite's flows inside a domain stay in it (docs/spec.md §4.9):
        # its hop counts are routed path lengths, not the graph distances
        # NetworkX finds (two devices of one domain on one scale-out leaf are
        # 2 hops apart in the graph, 4 inside their UB domain)
        composite = g.graph.get("kind") == "composite"
        hist = fx_hist if composite else hop_histogram(g, devices)
        if composite and label == "graphml":
            print(f"note {spec}: composite, hop histogram not compared (tier rule, not graph distance)")
        if hist != fx_hist:
            print(f"FAIL {spec} {label}: hops {sorted(hist.items())} != fabricx {sorted(fx_hist.items())}")
            ok = False
        n = len(devices)
        if n >= 2 and label == "graphml":
            half = n // 2
            cut = json.loads(run(fabricx, "metrics", spec, "--json",
                                 "--cut", f"device=0-{half - 1}:rest"))["cut"]
            flow = max_flow(g, set(devices[:half]), set(devices[half:]))
            if abs(flow - cut["max_flow_Bps"]) > 1e-9 * max(flow, 1):
                print(f"FAIL {spec}: max-flow {flow} != fabricx {cut['max_flow_Bps']}")
                ok = False
    if ok:
        print(f"ok   {spec}: {nv} vertices, {counts['links']} links, hop histogram and "
              f"half/half max-flow as NetworkX {nx.__version__} computes them")
    return ok


def main():
    fabricx, specs = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        results = [check(fabricx, s, tmp) for s in specs]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
