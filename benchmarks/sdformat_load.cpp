// Times libsdformat 12's sdf::Root::Load (+ resolving every pose) on SDFormat files: the
// reference implementation robot_formats' SDFormat reader is compared with.
// Built and run by benchmarks/sdformat_load.py against Debian's libsdformat-dev
// (pkg-config sdformat12).
//
// Usage: sdformat_load REPEATS WARMUPS FILE...
// For each file: chdir() to the file's directory (libsdformat 12 resolves relative include URIs
// against the current directory), WARMUPS untimed loads, then REPEATS timed loads. A timed load is
// Root::Load of the file (read, includes expanded, DOM built, frame graphs built and checked)
// followed by SemanticPose().Resolve() of every model, link, joint and frame, so the result
// holds every pose as robot_formats.load() does.
// Prints one line per file: "<median seconds> <error count> <resolved poses> <file>".
#include <sdf/Frame.hh>
#include <sdf/Joint.hh>
#include <sdf/Link.hh>
#include <sdf/Model.hh>
#include <sdf/Root.hh>
#include <sdf/World.hh>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Resolves the pose of every element of `model` (recursively); returns how many were resolved
// and adds resolution errors to `errors`.
int ResolveModel(const sdf::Model *model, sdf::Errors &errors) {
  int count = 0;
  ignition::math::Pose3d pose;
  auto resolve = [&](const sdf::SemanticPose &semantic) {
    sdf::Errors more = semantic.Resolve(pose, "__model__");
    errors.insert(errors.end(), more.begin(), more.end());
    ++count;
  };
  for (uint64_t i = 0; i < model->LinkCount(); ++i) resolve(model->LinkByIndex(i)->SemanticPose());
  for (uint64_t i = 0; i < model->JointCount(); ++i) resolve(model->JointByIndex(i)->SemanticPose());
  for (uint64_t i = 0; i < model->FrameCount(); ++i) resolve(model->FrameByIndex(i)->SemanticPose());
  for (uint64_t i = 0; i < model->ModelCount(); ++i) {
    const sdf::Model *nested = model->ModelByIndex(i);
    sdf::Errors more = nested->SemanticPose().Resolve(pose, "__model__");
    errors.insert(errors.end(), more.begin(), more.end());
    count += 1 + ResolveModel(nested, errors);
  }
  return count;
}

// One complete load; returns the number of errors (load + resolution).
int LoadOnce(const std::string &file, int *poses) {
  sdf::Root root;
  sdf::Errors errors = root.Load(file);
  int count = 0;
  if (const sdf::Model *model = root.Model()) {
    count += ResolveModel(model, errors);
  }
  for (uint64_t w = 0; w < root.WorldCount(); ++w) {
    const sdf::World *world = root.WorldByIndex(w);
    ignition::math::Pose3d pose;
    for (uint64_t i = 0; i < world->ModelCount(); ++i) {
      const sdf::Model *model = world->ModelByIndex(i);
      sdf::Errors more = model->SemanticPose().Resolve(pose, "world");
      errors.insert(errors.end(), more.begin(), more.end());
      count += 1 + ResolveModel(model, errors);
    }
    for (uint64_t i = 0; i < world->FrameCount(); ++i) {
      sdf::Errors more = world->FrameByIndex(i)->SemanticPose().Resolve(pose, "world");
      errors.insert(errors.end(), more.begin(), more.end());
      ++count;
    }
  }
  *poses = count;
  return static_cast<int>(errors.size());
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s REPEATS WARMUPS FILE...\n", argv[0]);
    return 2;
  }
  const int repeats = std::max(1, std::atoi(argv[1]));
  const int warmups = std::atoi(argv[2]);
  for (int f = 3; f < argc; ++f) {
    const std::string file = argv[f];
    const std::string directory = file.substr(0, file.find_last_of('/') + 1);
    if (!directory.empty() && chdir(directory.c_str()) != 0) {
      std::fprintf(stderr, "cannot chdir to %s\n", directory.c_str());
      return 1;
    }
    int poses = 0;
    int errors = 0;
    for (int i = 0; i < warmups; ++i) LoadOnce(file, &poses);
    std::vector<double> seconds;
    for (int i = 0; i < repeats; ++i) {
      auto start = std::chrono::steady_clock::now();
      errors = LoadOnce(file, &poses);
      auto stop = std::chrono::steady_clock::now();
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("%.9f %d %d %s\n", seconds[seconds.size() / 2], errors, poses, file.c_str());
    std::fflush(stdout);
  }
  return 0;
}
