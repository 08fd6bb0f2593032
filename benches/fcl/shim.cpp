// FCL 0.7 beside boxtree in the benches (feature `fcl`): a C API over a
// field of mesh objects, double precision. One BVHModel<OBBRSS> per
// distinct mesh, shared by its objects; a DynamicAABBTreeCollisionManager
// over all objects. No exception crosses into Rust: every entry point
// catches and reports failure by its return value.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/narrowphase/collision.h>

namespace {

using Model = fcl::BVHModel<fcl::OBBRSSd>;

struct Field {
  std::vector<std::shared_ptr<Model>> meshes;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
  std::vector<fcl::CollisionObjectd*> moved;
  fcl::DynamicAABBTreeCollisionManagerd manager;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
};

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
      std::vector<fcl::Vector3d> points(vertex_counts[m]);
      for (size_t v = 0; v < points.size(); ++v) {
        const float* p = vertices[m] + 3 * v;
        points[v] = fcl::Vector3d(p[0], p[1], p[2]);
      }
      std::vector<fcl::Triangle> tris(triangle_counts[m]);
      for (size_t t = 0; t < tris.size(); ++t) {
        const uint32_t* i = triangles[m] + 3 * t;
        tris[t] = fcl::Triangle(i[0], i[1], i[2]);
      }
      auto model = std::make_shared<Model>();
      if (model->beginModel(tris.size(), points.size()) != fcl::BVH_OK ||
          model->addSubModel(points, tris) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK)
        return nullptr;
      model->computeLocalAABB();
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

}  // extern "C"
