// FCL 0.7 beside boxtree in the benches (feature `fcl`): a C API in
// double precision over a field of mesh objects (one BVHModel<OBBRSS> per
// distinct mesh, shared by its objects; a DynamicAABBTreeCollisionManager
// over all objects) and over a pair of meshes for mesh-mesh distance and
// boolean collision. No exception crosses into Rust: every entry point
// catches and reports failure by its return value.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/detail/traversal/collision/mesh_collision_traversal_node.h>
#include <fcl/narrowphase/detail/traversal/collision_node.h>
#include <fcl/narrowphase/distance.h>

namespace {

using Model = fcl::BVHModel<fcl::OBBRSSd>;

struct Field {
  std::vector<std::shared_ptr<Model>> meshes;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
  std::vector<fcl::CollisionObjectd*> moved;
  fcl::DynamicAABBTreeCollisionManagerd manager;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
};

// Mesh-mesh distance and collision: A at the identity, B moved per query.
struct Pair {
  std::unique_ptr<fcl::CollisionObjectd> a;
  std::unique_ptr<fcl::CollisionObjectd> b;
};

// One mesh as FCL's BVHModel<OBBRSS>: `vertex_count` vertices (x, y, z
// floats) and `triangle_count` triangles (three u32 indices). Null when FCL
// refuses the model.
std::shared_ptr<Model> build_model(const float* vertices, size_t vertex_count,
                                   const uint32_t* triangles, size_t triangle_count) {
  std::vector<fcl::Vector3d> points(vertex_count);
  for (size_t v = 0; v < points.size(); ++v) {
    const float* p = vertices + 3 * v;
    points[v] = fcl::Vector3d(p[0], p[1], p[2]);
  }
  std::vector<fcl::Triangle> tris(triangle_count);
  for (size_t t = 0; t < tris.size(); ++t) {
    const uint32_t* i = triangles + 3 * t;
    tris[t] = fcl::Triangle(i[0], i[1], i[2]);
  }
  auto model = std::make_shared<Model>();
  if (model->beginModel(tris.size(), points.size()) != fcl::BVH_OK ||
      model->addSubModel(points, tris) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK)
    return nullptr;
  model->computeLocalAABB();
  return model;
}

fcl::Transform3d transform(const double pose[7]) {
  fcl::Transform3d t = fcl::Transform3d::Identity();
  t.linear() = fcl::Quaterniond(pose[0], pose[1], pose[2], pose[3]).toRotationMatrix();
  t.translation() = fcl::Vector3d(pose[4], pose[5], pose[6]);
  return t;
}

uint32_t index_of(const fcl::CollisionObjectd* o) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(o->getUserData()));
}

// Broad-phase callback: FCL's exact (boolean) narrow phase on the pair.
bool record(fcl::CollisionObjectd* o1, fcl::CollisionObjectd* o2, void* data) {
  auto* field = static_cast<Field*>(data);
  fcl::CollisionRequestd request(1, false);
  fcl::CollisionResultd result;
  fcl::collide(o1, o2, request, result);
  if (result.isCollision()) {
    uint32_t a = index_of(o1), b = index_of(o2);
    field->pairs.emplace_back(a < b ? a : b, a < b ? b : a);
  }
  return false;  // keep going: every pair
}

}  // namespace

extern "C" {

// A field of `n_objects` objects: object k is mesh `object_mesh[k]` of
// `n_meshes` at `poses[7k..7k+7]` (quaternion w, x, y, z, then translation).
// Mesh m has `vertex_counts[m]` vertices (x, y, z floats) at `vertices[m]`
// and `triangle_counts[m]` triangles at `triangles[m]`. Null on failure.
void* fcl_field_new(size_t n_meshes, const float* const* vertices,
                    const size_t* vertex_counts, const uint32_t* const* triangles,
                    const size_t* triangle_counts, size_t n_objects,
                    const uint32_t* object_mesh, const double* poses) {
  try {
    auto field = std::make_unique<Field>();
    for (size_t m = 0; m < n_meshes; ++m) {
      auto model = build_model(vertices[m], vertex_counts[m], triangles[m], triangle_counts[m]);
      if (!model) return nullptr;
      field->meshes.push_back(std::move(model));
    }
    std::vector<fcl::CollisionObjectd*> all;
    for (size_t k = 0; k < n_objects; ++k) {
      if (object_mesh[k] >= n_meshes) return nullptr;
      auto object = std::make_unique<fcl::CollisionObjectd>(field->meshes[object_mesh[k]],
                                                            transform(poses + 7 * k));
      object->setUserData(reinterpret_cast<void*>(static_cast<uintptr_t>(k)));
      all.push_back(object.get());
      field->objects.push_back(std::move(object));
    }
    field->manager.registerObjects(all);
    field->manager.setup();
    return field.release();
  } catch (...) {
    return nullptr;
  }
}

// Moves object `k` (pose as in fcl_field_new) and marks it for fcl_field_update.
int fcl_field_set_pose(void* handle, size_t k, const double pose[7]) {
  try {
    auto* field = static_cast<Field*>(handle);
    if (k >= field->objects.size()) return 0;
    fcl::CollisionObjectd* object = field->objects[k].get();
    object->setTransform(transform(pose));
    object->computeAABB();
    field->moved.push_back(object);
    return 1;
  } catch (...) {
    return 0;
  }
}

// Brings the manager up to date with the objects moved since the last
// update: DynamicAABBTreeCollisionManager::update(moved objects), which
// reinserts each moved leaf (the per-object path), then setup().
int fcl_field_update(void* handle) {
  try {
    auto* field = static_cast<Field*>(handle);
    field->manager.update(field->moved);
    field->moved.clear();
    return 1;
  } catch (...) {
    return 0;
  }
}

// The manager's other path: every leaf's box refitted, then rebalanced
// (DynamicAABBTreeCollisionManager::update()).
int fcl_field_update_all(void* handle) {
  try {
    auto* field = static_cast<Field*>(handle);
    field->manager.update();
    field->moved.clear();
    return 1;
  } catch (...) {
    return 0;
  }
}

// Every overlapping pair (lower index first, in FCL's order): the manager's
// self-collision with FCL's narrow phase on each candidate. Writes up to
// `capacity` pairs (two u32 each) to `out` (may be null when 0) and
// returns the number found, or -1 on failure.
int64_t fcl_field_all_pairs(void* handle, uint32_t* out, size_t capacity) {
  try {
    auto* field = static_cast<Field*>(handle);
    field->pairs.clear();
    field->manager.collide(field, record);
    size_t n = field->pairs.size();
    for (size_t i = 0; i < n && i < capacity; ++i) {
      out[2 * i] = field->pairs[i].first;
      out[2 * i + 1] = field->pairs[i].second;
    }
    return static_cast<int64_t>(n);
  } catch (...) {
    return -1;
  }
}

void fcl_field_free(void* handle) {
  delete static_cast<Field*>(handle);
}

// A pair of meshes for fcl_pair_distance and fcl_pair_collide: mesh A
// (`a_vertices`, x, y, z floats; `a_triangles`, three u32 each) fixed at the
// identity and mesh B placed per query, each a BVHModel<OBBRSS> (FCL's model
// for distance: the OBB prunes the overlap test, the RSS bounds distances)
// in its own CollisionObject. Null on failure.
void* fcl_pair_new(const float* a_vertices, size_t a_vertex_count, const uint32_t* a_triangles,
                   size_t a_triangle_count, const float* b_vertices, size_t b_vertex_count,
                   const uint32_t* b_triangles, size_t b_triangle_count) {
  try {
    auto a = build_model(a_vertices, a_vertex_count, a_triangles, a_triangle_count);
    auto b = build_model(b_vertices, b_vertex_count, b_triangles, b_triangle_count);
    if (!a || !b) return nullptr;
    auto pair = std::make_unique<Pair>();
    pair->a = std::make_unique<fcl::CollisionObjectd>(a, fcl::Transform3d::Identity());
    pair->b = std::make_unique<fcl::CollisionObjectd>(b, fcl::Transform3d::Identity());
    return pair.release();
  } catch (...) {
    return nullptr;
  }
}

// The distance between A and B with B at `pose` (as in fcl_field_new):
// fcl::distance with nearest points on, relative and absolute error 0
// (exact: the traversal prunes only boxes no nearer than the best pair) and
// signed distance off. Writes the distance to `out_distance` and the world
// nearest points of A then B (x, y, z each) to `out_points`; returns 1, or
// 0 on failure. Meshes whose surfaces cross answer 0, not FCL's documented
// "mostly -1": without enable_signed_distance the BVH traversal's triangle
// test (PQP's TriDist) answers 0 for a crossing pair, whose points need not
// be a common point (seen: 0 at every touching pose of the benches, never
// negative). Only the CollisionObject's transform is set: distance reads no
// world box, so computeAABB would be wasted work here.
int fcl_pair_distance(void* handle, const double pose[7], double* out_distance,
                      double out_points[6]) {
  try {
    auto* pair = static_cast<Pair*>(handle);
    pair->b->setTransform(transform(pose));
    fcl::DistanceRequestd request(true);
    fcl::DistanceResultd result;
    fcl::distance(pair->a.get(), pair->b.get(), request, result);
    *out_distance = result.min_distance;
    for (int k = 0; k < 3; ++k) {
      out_points[k] = result.nearest_points[0][k];
      out_points[3 + k] = result.nearest_points[1][k];
    }
    return 1;
  } catch (...) {
    return 0;
  }
}

// Whether A and B's surfaces touch with B at `pose` (as in fcl_field_new):
// fcl::collide with at most one contact and no contact information, so the
// traversal stops at the first intersecting triangle pair (FCL's own
// triangle test, in double precision). Writes 1 or 0 to `out_hit`; returns
// 1, or 0 on failure. Only the transform is set, as in fcl_pair_distance:
// fcl::collide on two objects reads their geometries and transforms, never
// the world boxes (only the broad phase does), so computeAABB would be
// wasted work here.
int fcl_pair_collide(void* handle, const double pose[7], int* out_hit) {
  try {
    auto* pair = static_cast<Pair*>(handle);
    pair->b->setTransform(transform(pose));
    fcl::CollisionRequestd request(1, false);
    fcl::CollisionResultd result;
    fcl::collide(pair->a.get(), pair->b.get(), request, result);
    *out_hit = result.isCollision() ? 1 : 0;
    return 1;
  } catch (...) {
    return 0;
  }
}

// fcl_pair_collide's traversal with FCL's statistics on, for its work
// counts (not for timing): the same node fcl::collide builds for two
// BVHModel<OBBRSS> (MeshCollisionTraversalNodeOBBRSS, whose volume test is
// the OBB's), run by the same recursion. Writes the answer to `out_hit`,
// then the volume tests (node pairs tested) and triangle tests (leaf pairs
// tested) to `out_counts`; returns 1, or 0 on failure.
int fcl_pair_collide_counts(void* handle, const double pose[7], int* out_hit,
                            uint64_t out_counts[2]) {
  try {
    auto* pair = static_cast<Pair*>(handle);
    const auto* a = static_cast<const Model*>(pair->a->collisionGeometry().get());
    const auto* b = static_cast<const Model*>(pair->b->collisionGeometry().get());
    fcl::CollisionRequestd request(1, false);
    fcl::CollisionResultd result;
    fcl::detail::MeshCollisionTraversalNodeOBBRSS<double> node;
    if (!fcl::detail::initialize(node, *a, pair->a->getTransform(), *b, transform(pose), request,
                                 result))
      return 0;
    node.enable_statistics = true;
    fcl::detail::collide(&node);
    *out_hit = result.isCollision() ? 1 : 0;
    out_counts[0] = static_cast<uint64_t>(node.num_bv_tests);
    out_counts[1] = static_cast<uint64_t>(node.num_leaf_tests);
    return 1;
  } catch (...) {
    return 0;
  }
}

void fcl_pair_free(void* handle) {
  delete static_cast<Pair*>(handle);
}

}  // extern "C"
