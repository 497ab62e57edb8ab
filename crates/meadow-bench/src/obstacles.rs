//! Deterministic temporary obstacles for the carving benchmark (`vs_tilecache`): boxes standing
//! on the mesh at seeded random points, the same for every side compared.

use meadow::query::{QueryMesh, SplitMix64};

/// Side of a box obstacle in X and in Z (metres): a crate, a barrel, a parked cart.
pub const BOX_SIDE: f64 = 1.0;
/// How far a box reaches below the surface point it stands on (metres), so that it meets the
/// floor on gentle slopes too.
pub const BOX_BELOW: f64 = 0.1;
/// How far a box reaches above the surface point it stands on (metres): the demo agent's height,
/// so an agent cannot pass over it.
pub const BOX_ABOVE: f64 = 2.0;
/// Added to a seed to draw the move targets, so they are not the placed boxes again.
const MOVE_SEED_OFFSET: u64 = 0x6d6f_7665;

/// A box obstacle: `BOX_SIDE` x `BOX_SIDE` in XZ, axis-aligned, centred on a point of the mesh,
/// from `BOX_BELOW` under that point to `BOX_ABOVE` over it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxObstacle {
    /// The surface point the box stands on, `[x, y, z]`.
    pub centre: [f64; 3],
}

impl BoxObstacle {
    /// The box standing on `centre`.
    pub fn at(centre: [f64; 3]) -> BoxObstacle {
        BoxObstacle { centre }
    }

    /// The box's outline in XZ, `[x, z]` corners counter-clockwise (positive signed area in
    /// Meadow's XZ convention).
    pub fn polygon_xz(&self) -> Vec<[f64; 2]> {
        let [lo, hi] = self.xz_bounds();
        vec![[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]
    }

    /// The lowest and highest y the box occupies.
    pub fn y_range(&self) -> [f64; 2] {
        [self.centre[1] - BOX_BELOW, self.centre[1] + BOX_ABOVE]
    }

    /// The XZ box: `[[min x, min z], [max x, max z]]`.
    pub fn xz_bounds(&self) -> [[f64; 2]; 2] {
        let h = BOX_SIDE / 2.0;
        let [x, _, z] = self.centre;
        [[x - h, z - h], [x + h, z + h]]
    }
}

/// `count` boxes standing on uniform random points of `mesh` (by XZ area), from `seed`; fewer
/// only when the mesh has no area.
pub fn box_obstacles(mesh: &QueryMesh, count: usize, seed: u64) -> Vec<BoxObstacle> {
    let mut rng = SplitMix64::new(seed);
    (0..count).map_while(|_| mesh.random_point(&mut rng)).map(|l| BoxObstacle::at(l.point)).collect()
}

/// Where the boxes of [`box_obstacles`]`(mesh, count, seed)` move to: box `i` moves to the
/// `i`-th of another `count` uniform random points of `mesh`, drawn from a seed derived from
/// `seed`.
pub fn move_targets(mesh: &QueryMesh, count: usize, seed: u64) -> Vec<BoxObstacle> {
    box_obstacles(mesh, count, seed.wrapping_add(MOVE_SEED_OFFSET))
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow::geom::{is_convex_ccw, signed_area};
    use meadow::NavMesh;

    fn floor() -> QueryMesh {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/assets/box_floor.nav");
        QueryMesh::new(NavMesh::load(path).expect("the box_floor fixture asset"))
    }

    #[test]
    fn boxes_are_counter_clockwise_unit_squares_on_the_mesh() {
        let mesh = floor();
        let boxes = box_obstacles(&mesh, 50, 7);
        assert_eq!(boxes.len(), 50);
        for b in &boxes {
            let ring = b.polygon_xz();
            assert!(is_convex_ccw(&ring), "{ring:?}");
            assert!((signed_area(&ring) - BOX_SIDE * BOX_SIDE).abs() < 1e-9);
            let [lo, hi] = b.y_range();
            assert!(lo < b.centre[1] && b.centre[1] < hi);
            // The centre is a point of the mesh: it locates on a polygon at its own height.
            let at = mesh.locate(b.centre).expect("the centre is on the mesh");
            assert!((at.point[1] - b.centre[1]).abs() < 1e-6, "{:?} vs {:?}", at.point, b.centre);
        }
    }

    #[test]
    fn obstacles_are_deterministic_and_moves_differ() {
        let mesh = floor();
        assert_eq!(box_obstacles(&mesh, 20, 3), box_obstacles(&mesh, 20, 3));
        assert_ne!(box_obstacles(&mesh, 20, 3), box_obstacles(&mesh, 20, 4));
        let (placed, targets) = (box_obstacles(&mesh, 20, 3), move_targets(&mesh, 20, 3));
        assert_eq!(targets.len(), 20);
        assert!(placed.iter().zip(&targets).all(|(a, b)| a != b));
    }
}
