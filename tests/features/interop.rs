//! glam's and mint's types at the API's edges (features `glam`, `mint`):
//! the same answers as with boxtree's own types.

#[cfg(feature = "glam")]
#[test]
fn glam_points_poses_and_hits_round_trip() {
    use boxtree::math::pose_from_affine;
    use boxtree::{Aabb, Isometry, MeshTree, Point, Scene, Segment, TriMesh};
    use glam::{Affine3A, Quat, Vec3, Vec3A};

    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 3));
    let (eye, target) = (Vec3::new(-5.0, 0.1, 0.2), Vec3::new(5.0, 0.1, 0.2));
    // End points as glam vectors, straight into a query.
    let hit = tree.closest_hit((eye, target)).expect("hits the ball");
    let ours = tree.closest_hit(Segment::new(Point::from(eye), Point::from(target)));
    assert_eq!(Some(hit), ours);
    assert_eq!(
        tree.any_hit((Vec3A::from(eye), Vec3A::from(target))),
        tree.any_hit((eye, target))
    );
    // Answers convert back without a copy of anything but the values.
    let normal: Vec3 = hit.normal.into();
    assert!(normal.x < -0.9, "{normal}");
    let projection = tree
        .closest_point(Vec3::new(3.0, 0.0, 0.0))
        .expect("non-empty");
    assert!((projection.distance - 2.0).abs() < 0.01);
    assert_eq!(
        tree.closest_point(Vec3A::new(3.0, 0.0, 0.0)),
        Some(projection)
    );

    // Poses: (translation, rotation) pairs, and rigid affine transforms.
    let (t, q) = (Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
    let affine = Affine3A::from_rotation_translation(q, t);
    let pose = pose_from_affine(&affine).expect("rigid");
    let from_pair: Isometry = (t, q).into();
    assert!((pose.translation.vector - from_pair.translation.vector).norm() < 1e-6);
    assert!(pose.rotation.angle_to(&from_pair.rotation) < 1e-5);
    assert!(pose_from_affine(&Affine3A::from_scale(Vec3::new(1.0, 1.0, 2.0))).is_none());
    assert!(pose_from_affine(&Affine3A::from_scale(Vec3::new(1.0, 1.0, -1.0))).is_none());
    let mut scene = Scene::new();
    let id = scene.add(tree, (t, q)).expect("finite pose");
    scene
        .set_pose(id, (Vec3::ZERO, Quat::IDENTITY))
        .expect("finite pose");
    assert_eq!(scene.pose(id), Some(Isometry::identity()));
}

#[cfg(feature = "mint")]
#[test]
fn mint_points_reach_the_queries() {
    use boxtree::{Aabb, MeshTree, Point, TriMesh};
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 3));
    let eye = mint::Point3 {
        x: -5.0,
        y: 0.1,
        z: 0.2,
    };
    let target = mint::Point3 {
        x: 5.0,
        y: 0.1,
        z: 0.2,
    };
    let hit = tree.closest_hit((eye, target)).expect("hits the ball");
    let normal: mint::Vector3<f32> = hit.normal.into();
    assert!(normal.x < -0.9);
    let p = mint::Point3 {
        x: 3.0,
        y: 0.0,
        z: 0.0,
    };
    assert!((tree.closest_point(p).expect("non-empty").distance - 2.0).abs() < 0.01);
}
