// Barrier-synchronised rounds of flows on a SimGrid platform: the peer
// figures of tests/unit/test_routing.c (issue 27's per-cable and dual-rail
// d-mod-k cases).  SimGrid 3.32 (Debian libsimgrid-dev):
//
//   g++ -O1 -std=c++17 rounds.cpp -o rounds -lsimgrid
//   CFG="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0"
//   ./rounds leaf-spine-16-two-cables.xml pairwise 15728640 $CFG   # total 545.2595 us
//   ./rounds leaf-spine-16-two-cables.xml direct 15728640 $CFG     # total 314.5728 us
//   ./rounds dual-rail-16.xml pairwise 15728640 $CFG               # total 314.5728 us
//   ./rounds dual-rail-16.xml direct 15728640 $CFG                 # total 314.5728 us
//   ./rounds leaf-spine-16.xml pairwise 15728640 $CFG              # total 545.2595 us
//
// pattern: pairwise (round s: rank i sends bytes/(n-1) to rank i+s, a
// barrier between rounds), direct (one round, every rank to every other);
// bytes is what each rank sends in all, as fabricx's --size for all-to-all.
// The platforms are SimGrid FAT_TREE clusters (split-duplex links, 50 GBps,
// no latency), routed by FatTreeZone's d-mod-k.
#include <simgrid/s4u.hpp>
#include <cstdio>
#include <string>
#include <vector>
#include <algorithm>
#include <cstdlib>
namespace sg4 = simgrid::s4u;
static std::vector<sg4::Host*> hosts;
static std::string pattern;
static double bytes;
static sg4::BarrierPtr bar;
static double total = 0;
static void worker(int me)
{
  int n = hosts.size();
  std::vector<int> rounds;
  if (pattern == "pairwise") for (int s = 1; s < n; s++) rounds.push_back(s);
  else rounds.push_back(0);
  for (int s : rounds) {
    double t0 = sg4::Engine::get_clock();
    std::vector<sg4::CommPtr> comms;
    std::vector<int> dsts;
    if (s) dsts.push_back((me + s) % n);
    else for (int d = 0; d < n; d++) if (d != me) dsts.push_back(d);
    double b = s ? bytes / (n - 1) : bytes / (n - 1);
    for (int d : dsts) {
      auto c = sg4::Comm::sendto_async(hosts[me], hosts[d], b);
      comms.push_back(c);
    }
    for (auto& c : comms) c->wait();
    bar->wait();
    if (me == 0) {
      double t = sg4::Engine::get_clock() - t0;
      if (getenv("VERBOSE")) printf("round %d %.6f us\n", s, t * 1e6);
    }
    bar->wait();
  }
  if (me == 0) printf("total %.4f us\n", sg4::Engine::get_clock() * 1e6);
}
int main(int argc, char** argv)
{
  sg4::Engine e(&argc, argv);
  e.load_platform(argv[1]);
  pattern = argv[2];
  bytes = atof(argv[3]);
  hosts = e.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(), [](sg4::Host* a, sg4::Host* b){ return atoi(a->get_cname()+5) < atoi(b->get_cname()+5); });
  bar = sg4::Barrier::create(hosts.size());
  for (size_t i = 0; i < hosts.size(); i++) sg4::Actor::create("w", hosts[i], worker, (int)i);
  e.run();
}
