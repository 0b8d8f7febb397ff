// Times urdfdom's urdf::parseURDF on one file: the reference URDF parser of ROS.
// Built and run by benchmarks/urdf_load.py against the urdfdom shipped with PyPI `pin`.
// Usage: urdfdom_load FILE REPEATS  -> prints the median seconds per parse.
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) { std::fprintf(stderr, "usage: %s FILE REPEATS\n", argv[0]); return 2; }
  const int repeats = std::atoi(argv[2]);
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    std::ifstream stream(argv[1]);  // reading the file is part of loading it, as for the others
    std::stringstream text;
    text << stream.rdbuf();
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDF(text.str());
    auto stop = std::chrono::steady_clock::now();
    if (!model) { std::fprintf(stderr, "urdfdom could not parse %s\n", argv[1]); return 1; }
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%.9f\n", seconds[seconds.size() / 2]);
  return 0;
}
