// A small C interface to RVO2 for the side-by-side benchmark (vs_rvo2): RVO2's Circle loop.
// Compiled twice by build.rs: with RVO2 as a plain static library (every Vector2 operator a call
// into Vector2.cc) and as one translation unit with all of RVO2's sources (rvo2_whole.cc), the
// whole-program build. RVO2_FN names the C entry points of each build apart.

#include <cstddef>
#include <vector>

#include "RVOSimulator.h"
#include "Vector2.h"

#ifndef RVO2_FN
#error "define RVO2_FN(name) to name this build's entry points"
#endif

namespace {
struct Circle {
  RVO::RVOSimulator sim;
  std::vector<RVO::Vector2> goals;
  Circle(float time_step, float neighbor_dist, std::size_t max_neighbors,
         float time_horizon, float time_horizon_obst, float radius,
         float max_speed)
      : sim(time_step, neighbor_dist, max_neighbors, time_horizon,
            time_horizon_obst, radius, max_speed) {}
};
}  // namespace

extern "C" {

// Agents at xy[2i], xy[2i+1] with goals at goal_xy, all with the given defaults and zero velocity;
// null when memory runs out (no C++ exception may cross into Rust).
void *RVO2_FN(new)(std::size_t n, const float *xy, const float *goal_xy,
                   float time_step, float neighbor_dist,
                   std::size_t max_neighbors, float time_horizon,
                   float time_horizon_obst, float radius, float max_speed) {
  Circle *c = nullptr;
  try {
    c = new Circle(time_step, neighbor_dist, max_neighbors, time_horizon,
                   time_horizon_obst, radius, max_speed);
    for (std::size_t i = 0; i < n; ++i) {
      c->sim.addAgent(RVO::Vector2(xy[2 * i], xy[2 * i + 1]));
      c->goals.push_back(RVO::Vector2(goal_xy[2 * i], goal_xy[2 * i + 1]));
    }
  } catch (...) {
    delete c;
    return nullptr;
  }
  return c;
}

// One step of RVO2's examples: preferred velocities towards the goals (unit length when farther
// than 1), doStep, then whether every agent is within sqrt(goal_radius_sq) of its goal.
// -1 when memory runs out (doStep rebuilds RVO2's k-d trees).
int RVO2_FN(step)(void *handle, float goal_radius_sq) try {
  Circle *c = static_cast<Circle *>(handle);
  const std::size_t n = c->sim.getNumAgents();
  for (std::size_t i = 0; i < n; ++i) {
    RVO::Vector2 g = c->goals[i] - c->sim.getAgentPosition(i);
    if (RVO::absSq(g) > 1.0F) {
      g = RVO::normalize(g);
    }
    c->sim.setAgentPrefVelocity(i, g);
  }
  c->sim.doStep();
  for (std::size_t i = 0; i < n; ++i) {
    if (RVO::absSq(c->sim.getAgentPosition(i) - c->goals[i]) > goal_radius_sq) {
      return 0;
    }
  }
  return 1;
} catch (...) {
  return -1;
}

// Writes the agents' positions to out_xy (2 floats per agent).
void RVO2_FN(positions)(const void *handle, float *out_xy) {
  const Circle *c = static_cast<const Circle *>(handle);
  for (std::size_t i = 0; i < c->sim.getNumAgents(); ++i) {
    const RVO::Vector2 &p = c->sim.getAgentPosition(i);
    out_xy[2 * i] = p.x();
    out_xy[2 * i + 1] = p.y();
  }
}

void RVO2_FN(free)(void *handle) { delete static_cast<Circle *>(handle); }

}  // extern "C"
