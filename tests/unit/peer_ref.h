/* SimGrid 3.32's times for the peer cases (tests/peer/cases.txt), written
 * by tests/peer/run.sh (make peer-check PEER_UPDATE=1); platforms
 * tests/peer/<spec>.xml, CM02 with crosstraffic off and TCP-gamma 0. */
#define PEER_SIMGRID_VERSION "3.32"
PEER_CASE("tree-5x5", "torus-5x5", "allreduce", "tree", 262144, 25, "split", "maxmin", 3.56913987e-05)
PEER_CASE("ring-5x5", "torus-5x5", "allreduce", "ring", 1012000, 23, "split", "maxmin", 6.512e-05)
PEER_CASE("ring-5x5-eager", "torus-5x5", "allreduce", "ring", 1012000, 23, "split", "events", 4.992e-05)
PEER_CASE("eager-ring-8", "torus-3x3-500ns", "allreduce", "ring", 65536, 8, "split", "events", 1.229376e-05)
PEER_CASE("eager-ring-16", "torus-5x5-500ns", "allreduce", "ring", 65536, 16, "split", "events", 2.14576e-05)
PEER_CASE("eager-ring-64", "torus-9x9-500ns", "allreduce", "ring", 65536, 64, "split", "events", 7.358048e-05)
PEER_CASE("ring-64", "torus-9x9-500ns", "allreduce", "ring", 65536, 64, "split", "maxmin", 0.00012858048)
PEER_CASE("swing-4x4", "torus-4x4", "allreduce", "swing-torus", 1048576, 16, "plus", "maxmin", 1.14304e-05)
PEER_CASE("swing-8x8", "torus-8x8", "allreduce", "swing-torus", 1048576, 64, "plus", "maxmin", 1.530496e-05)
PEER_CASE("rec-8x8", "torus-8x8", "allreduce", "rec-torus", 1048576, 64, "plus", "maxmin", 6.065024e-05)
PEER_CASE("bucket-8x8", "torus-8x8", "allreduce", "torus", 1048576, 64, "plus", "maxmin", 1.592192e-05)
PEER_CASE("hash-fat-tree", "fat-tree-k4", "all-to-all", "pairwise", 1048576, 16, "split", "maxmin", 3.89715e-05)
PEER_CASE("hash-fat-tree-dir", "fat-tree-k4", "all-to-all", "direct", 1048576, 16, "split", "maxmin", 2.13715e-05)
PEER_CASE("hash-leaf-spine", "leaf-spine-2to1", "all-to-all", "pairwise", 1048576, 16, "split", "maxmin", 4.83506e-05)
PEER_CASE("hash-ls-direct", "leaf-spine-2to1", "all-to-all", "direct", 1048576, 16, "split", "maxmin", 3.43544e-05)
PEER_CASE("custom-direct", "two-switch", "all-to-all", "direct", 600000, 6, "split", "maxmin", 4.41e-05)
PEER_CASE("custom-ring", "two-switch", "allreduce", "ring", 600000, 6, "split", "maxmin", 4.9e-05)
