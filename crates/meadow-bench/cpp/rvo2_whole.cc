// RVO2's whole-program build: every source of the library and the driver in one translation unit,
// so the compiler sees the Vector2 operators (defined in Vector2.cc) where they are used, as
// `-flto` over all sources does. The namespace is renamed so that this copy and the plain static
// library link into one benchmark binary.

#define RVO RVO_WHOLE
#include "Vector2.cc"
#include "Line.cc"
#include "Obstacle.cc"
#include "Agent.cc"
#include "KdTree.cc"
#include "RVOSimulator.cc"
#include "rvo2_driver.cc"
