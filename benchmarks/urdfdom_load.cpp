// urdfdom's urdf::parseURDF (the reference URDF parser of ROS) as a C function, so that
// benchmarks/urdf_load.py can time it in its own process, interleaved with robot_formats.load()
// and on the same clock: the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, which Python's
// time.thread_time() reads too). Built by benchmarks/urdf_load.py against the urdfdom that PyPI
// `pin` ships.
#include <urdf_parser/urdf_parser.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

static double thread_seconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Reads and parses the file once; returns the CPU seconds it took, or -1 if urdfdom refuses it.
// Reading the file is part of loading it, as for robot_formats.load().
extern "C" double urdfdom_parse_seconds(const char* path) {
  const double start = thread_seconds();
  std::ifstream stream(path);
  std::stringstream text;
  text << stream.rdbuf();
  urdf::ModelInterfaceSharedPtr model = urdf::parseURDF(text.str());
  const double stop = thread_seconds();
  return model ? stop - start : -1.0;
}
