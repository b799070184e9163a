/*
 * The SimGrid twin of fabricx's flow-level timing: runs a schedule written
 * by tests/peer/schedule on a SimGrid platform and prints its simulated
 * time in seconds.
 *
 *   twin PLATFORM.xml SCHEDULE rounds|events [--cfg=...]
 *
 * Hosts are named h<device id>.  rounds: each round's flows start together
 * (Comm::sendto_async) and the next round starts when the last one is in;
 * a round repeated R times costs R times its one run (the same flows
 * again).  events: every round's repetitions as one graph, fabricx's rule
 * (routing/timing.c) written again here: a flow from rank s starts once
 * every flow into s of s's latest earlier repetition in which s received
 * anything has arrived (SMPI's eager sends: nothing else holds a send
 * back).  Run with network/model:CM02 (latency and bandwidth factors 1),
 * network/crosstraffic:0 and network/TCP-gamma:0 (no window bound), as
 * tests/peer/run.sh does.
 */
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

struct Flow {
	long src, dst;
	double bytes;
};
struct Round {
	long repeat;
	std::vector<Flow> flows;
};

static std::vector<Round> rounds;
static std::string mode;
static double result = 0;

static sg4::Host *host(long dev)
{
	return sg4::Host::by_name("h" + std::to_string(dev));
}

static void run_rounds()
{
	double total = 0;
	for (const Round &r : rounds) {
		double t0 = sg4::Engine::get_clock();
		std::vector<sg4::CommPtr> comms;
		for (const Flow &f : r.flows)
			comms.push_back(sg4::Comm::sendto_async(host(f.src), host(f.dst), (uint64_t)f.bytes));
		for (auto &c : comms)
			c->wait();
		total += (sg4::Engine::get_clock() - t0) * (double)r.repeat;
	}
	result = total;
}

static void run_events()
{
	/* instances in order; deps by the gate rule */
	std::vector<Flow> flows;
	std::vector<long> gate_of;        /* per flow: its gate (into dst) */
	std::vector<long> gate_left;      /* per gate: flows not yet arrived */
	std::vector<std::vector<size_t>> gate_wait;
	std::vector<int> pending;
	std::map<long, long> last_gate, cur_gate;
	for (const Round &r : rounds)
		for (long rep = 0; rep < r.repeat; rep++) {
			cur_gate.clear();
			for (const Flow &f : r.flows) {
				size_t id = flows.size();
				flows.push_back(f);
				pending.push_back(0);
				auto g = last_gate.find(f.src);
				if (g != last_gate.end()) {
					pending[id]++;
					gate_wait[(size_t)g->second].push_back(id);
				}
				auto c = cur_gate.find(f.dst);
				if (c == cur_gate.end()) {
					c = cur_gate.emplace(f.dst, (long)gate_left.size()).first;
					gate_left.push_back(0);
					gate_wait.emplace_back();
				}
				gate_of.push_back(c->second);
				gate_left[(size_t)c->second]++;
			}
			for (auto &c : cur_gate)
				last_gate[c.first] = c.second;
		}
	std::vector<sg4::CommPtr> active;
	std::vector<size_t> active_id;
	auto start = [&](size_t id) {
		active.push_back(sg4::Comm::sendto_async(host(flows[id].src), host(flows[id].dst),
							  (uint64_t)flows[id].bytes));
		active_id.push_back(id);
	};
	for (size_t id = 0; id < flows.size(); id++)
		if (pending[id] == 0)
			start(id);
	while (!active.empty()) {
		ssize_t k = sg4::Comm::wait_any(active);
		size_t id = active_id[(size_t)k];
		active.erase(active.begin() + k);
		active_id.erase(active_id.begin() + k);
		long g = gate_of[id];
		if (--gate_left[(size_t)g] == 0)
			for (size_t w : gate_wait[(size_t)g])
				if (--pending[w] == 0)
					start(w);
	}
	result = sg4::Engine::get_clock();
}

int main(int argc, char **argv)
{
	sg4::Engine e(&argc, argv);
	if (argc < 4) {
		std::fprintf(stderr, "usage: twin PLATFORM SCHEDULE rounds|events [--cfg=...]\n");
		return 2;
	}
	e.load_platform(argv[1]);
	std::ifstream in(argv[2]);
	std::string word;
	while (in >> word) {
		if (word != "round") {
			std::fprintf(stderr, "twin: bad schedule line starting '%s'\n", word.c_str());
			return 2;
		}
		Round r;
		long stages;
		size_t n;
		in >> r.repeat >> stages >> n;
		for (size_t k = 0; k < n; k++) {
			Flow f;
			in >> f.src >> f.dst >> f.bytes;
			r.flows.push_back(f);
		}
		rounds.push_back(r);
	}
	mode = argv[3];
	sg4::Actor::create("driver", e.get_all_hosts()[0], mode == "events" ? run_events : run_rounds);
	e.run();
	std::printf("%.9g\n", result);
	return 0;
}
