//! A generated open world bigger than a level, the same bytes on every machine: rolling terrain
//! with cliffs steeper than any walkable slope, thousands of instanced props under a node
//! hierarchy, and multi-storey buildings whose floors are joined by stairs.
//!
//! [`generate`] sizes everything from a triangle budget: terrain cells of 2 m (about 2.7
//! triangles per cell with the props), one prop per 100 m² of terrain, one plateau per 60 cells
//! of side and one building per 80. Asked for 1,000,000 triangles, the world holds 1,014,344,
//! is 1,216 m across and has 14,697 props and 7 buildings; asked for 100,000, it holds 102,308,
//! is 384 m across and has 1,447 props and 2 buildings. The level's shape, as a level artist's
//! export would have it:
//!
//! - `World` → `Terrain`: one mesh of 8 x 8 chunk primitives. Heights are gentle waves (at most
//!   about 5°) plus plateaus whose 3 m-wide sides climb 4-8 m (60-75°), flattened into a pad
//!   under each building.
//! - `World` → `Props` → `Sector r c` (translated to the sector's corner) → one node per prop
//!   (translation, yaw, uniform scale) instancing one of four meshes: a crate (a box), a rock (an
//!   octahedron), a column (an octagonal prism) and a tree (a trunk under a cone canopy whose
//!   lowest edge is 2.5 m up, above the agent).
//! - `World` → `Buildings` → `Building k` (yawed by 0° or 90°) instancing a building mesh of 3
//!   or 4 storeys: a solid foundation, floor slabs 3 m apart with a stairwell over each flight of
//!   12 steps (0.25 m rise, 2 m wide), perimeter walls with a door on the ground floor, a roof.
//!
//! [`World`] also says where the generated features are, for tests that check the bake.

use serde_json::{json, Value};

/// Most random positions tried for the building pads, and again for the plateaus.
const PLACEMENT_TRIES: usize = 100_000;
/// Side of one terrain cell (m).
const CELL: f64 = 2.0;
/// Terrain chunks per side (one glTF primitive each).
const CHUNKS: usize = 8;
/// Terrain area per prop (m²).
const AREA_PER_PROP: f64 = 100.0;
/// Props are grouped under sector nodes, this many per side.
const SECTORS: usize = 8;

/// Building footprint (m, local x and z) and storey height (m).
const BUILDING_W: f64 = 20.0;
const BUILDING_D: f64 = 14.0;
const STOREY: f64 = 3.0;
/// Floor slab and wall thickness (m).
const SLAB: f64 = 0.2;
const WALL: f64 = 0.3;
/// One flight of stairs: steps, run per step and width (m); it rises one storey.
const STEPS: usize = 12;
const RUN: f64 = 0.3;
const STAIR_WIDTH: f64 = 2.0;
/// Local x where every flight starts (it climbs towards +x).
const STAIR_X: f64 = 4.0;

/// A generated world: its GLB bytes and where its features are.
#[derive(Clone, Debug)]
pub struct World {
    /// The level, one binary glTF.
    pub glb: Vec<u8>,
    /// Triangles the level holds once every instance is placed.
    pub triangles: usize,
    /// Prop instances (nodes referencing a prop mesh).
    pub props: usize,
    /// Half the terrain's side (m); the terrain spans `-half..half` on x and z.
    pub half: f64,
    /// The buildings.
    pub buildings: Vec<BuildingInfo>,
    /// The plateaus (cliff-sided, so unreachable from the terrain around them).
    pub plateaus: Vec<PlateauInfo>,
}

/// Where one building's features are, in world coordinates.
#[derive(Clone, Debug)]
pub struct BuildingInfo {
    /// A point on the terrain 3 m outside the door.
    pub outside_door: [f64; 3],
    /// One walkable point on each storey's floor, ground floor first, away from walls and holes.
    pub storey_points: Vec<[f64; 3]>,
}

/// A cliff-sided plateau.
#[derive(Clone, Debug)]
pub struct PlateauInfo {
    /// Its centre on top.
    pub top: [f64; 3],
    /// Radius of its flat top (m).
    pub radius: f64,
}

/// SplitMix64: a fixed sequence, so the world is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
}

fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A plateau: centre, radius of the flat top, height, width of the cliff.
#[derive(Clone, Copy)]
struct Plateau {
    cx: f64,
    cz: f64,
    radius: f64,
    height: f64,
}

/// Width of a plateau's cliff band (m): 4-8 m over 3 m is 53-69° on average, steeper mid-way.
const CLIFF: f64 = 3.0;

/// A building pad: centre, half extents (the building's footprint, either way round) and level.
#[derive(Clone, Copy)]
struct Pad {
    cx: f64,
    cz: f64,
    level: f64,
}

/// Radius around a pad's centre that is flattened to its level (m), then blended over
/// [`PAD_BLEND`].
const PAD_FLAT: f64 = 16.0;
const PAD_BLEND: f64 = 14.0;

struct Terrain {
    plateaus: Vec<Plateau>,
    pads: Vec<Pad>,
}

impl Terrain {
    /// The rolling ground without plateaus or pads: at most about 5° of slope.
    fn waves(x: f64, z: f64) -> f64 {
        3.0 * (x / 40.0).sin() * (z / 55.0).cos() + 1.5 * (x / 23.0 + z / 31.0).sin()
    }

    fn height(&self, x: f64, z: f64) -> f64 {
        let mut h = Self::waves(x, z);
        for p in &self.plateaus {
            let r = ((x - p.cx).powi(2) + (z - p.cz).powi(2)).sqrt();
            h += p.height * smoothstep((p.radius + CLIFF - r) / CLIFF);
        }
        for pad in &self.pads {
            let r = ((x - pad.cx).powi(2) + (z - pad.cz).powi(2)).sqrt();
            let w = smoothstep((PAD_FLAT + PAD_BLEND - r) / PAD_BLEND);
            h = h * (1.0 - w) + pad.level * w;
        }
        h
    }
}

/// Triangles of one mesh part: positions and counter-clockwise (outward) index triples.
#[derive(Default, Clone)]
struct Part {
    positions: Vec<[f64; 3]>,
    indices: Vec<u32>,
}

impl Part {
    /// A closed axis-aligned box, faces outward.
    fn cuboid(&mut self, min: [f64; 3], max: [f64; 3]) {
        let first = self.positions.len() as u32;
        for k in 0..8 {
            let pick = |axis: usize, bit: usize| if k >> bit & 1 == 0 { min[axis] } else { max[axis] };
            self.positions.push([pick(0, 0), pick(1, 2), pick(2, 1)]);
        }
        // Corners: bit 0 = x, bit 1 = z, bit 2 = y. Bottom 0 1 3 2, top 4 5 7 6.
        const FACES: [[u32; 3]; 12] = [
            [0, 1, 3],
            [0, 3, 2],
            [4, 6, 7],
            [4, 7, 5],
            [0, 4, 5],
            [0, 5, 1],
            [1, 5, 7],
            [1, 7, 3],
            [3, 7, 6],
            [3, 6, 2],
            [2, 6, 4],
            [2, 4, 0],
        ];
        for f in FACES {
            self.indices.extend(f.map(|i| first + i));
        }
    }

    /// A closed prism of `sides` around the y axis from `y0` to `y1` (radius `r`), or a cone when
    /// `apex` is set (its tip at `y1`).
    fn prism(&mut self, sides: usize, r: f64, y0: f64, y1: f64, apex: bool) {
        let first = self.positions.len() as u32;
        let ring = |y: f64, out: &mut Vec<[f64; 3]>| {
            for k in 0..sides {
                let a = k as f64 / sides as f64 * std::f64::consts::TAU;
                out.push([r * a.cos(), y, r * a.sin()]);
            }
        };
        ring(y0, &mut self.positions);
        let s = sides as u32;
        if apex {
            self.positions.push([0.0, y1, 0.0]);
            for k in 0..s {
                let (a, b) = (first + k, first + (k + 1) % s);
                // Side (outward, counter-clockwise seen from outside) and base (facing down).
                self.indices.extend([a, first + s, b]);
                if k > 0 && k + 1 < s {
                    self.indices.extend([first, a, b]);
                }
            }
            return;
        }
        ring(y1, &mut self.positions);
        for k in 0..s {
            let (a, b) = (first + k, first + (k + 1) % s);
            let (c, d) = (a + s, b + s);
            self.indices.extend([a, c, d, a, d, b]);
            if k > 0 && k + 1 < s {
                self.indices.extend([first, a, b]);
                self.indices.extend([first + s, d, c]);
            }
        }
    }

    /// A closed octahedron of radius `r` (height `h`) resting on y = 0.
    fn octahedron(&mut self, r: f64, h: f64) {
        let first = self.positions.len() as u32;
        self.positions.extend([[r, h / 2.0, 0.0], [0.0, h / 2.0, r], [-r, h / 2.0, 0.0], [0.0, h / 2.0, -r]]);
        self.positions.extend([[0.0, h, 0.0], [0.0, 0.0, 0.0]]);
        for k in 0..4u32 {
            let (a, b) = (first + k, first + (k + 1) % 4);
            self.indices.extend([a, first + 4, b]);
            self.indices.extend([a, b, first + 5]);
        }
    }

    fn triangles(&self) -> usize {
        self.indices.len() / 3
    }
}

/// One prop mesh.
struct PropKind {
    name: &'static str,
    part: Part,
}

fn prop_kinds() -> Vec<PropKind> {
    let mut crate_ = Part::default();
    crate_.cuboid([-0.6, -0.2, -0.6], [0.6, 1.0, 0.6]);
    let mut rock = Part::default();
    rock.octahedron(1.1, 1.6);
    let mut column = Part::default();
    column.prism(8, 0.4, -0.2, 4.0, false);
    let mut tree = Part::default();
    tree.cuboid([-0.15, -0.2, -0.15], [0.15, 2.6, 0.15]);
    let mut canopy = Part::default();
    canopy.prism(8, 1.6, 2.5, 5.5, true);
    let first = tree.positions.len() as u32;
    tree.positions.extend(canopy.positions);
    tree.indices.extend(canopy.indices.iter().map(|i| i + first));
    vec![
        PropKind { name: "crate", part: crate_ },
        PropKind { name: "rock", part: rock },
        PropKind { name: "column", part: column },
        PropKind { name: "tree", part: tree },
    ]
}

/// The height of storey `i`'s floor above the building's origin (the pad).
fn storey_floor(i: usize) -> f64 {
    SLAB + i as f64 * STOREY
}

/// The local z where flight `i` (from storey `i - 1` to `i`) runs.
fn flight_z(i: usize) -> f64 {
    2.0 + (i - 1) as f64 * 4.0
}

/// A building of `storeys` storeys in its local frame (x across 0..20, z 0..14, the door in the
/// wall at z = 0): slabs, walls and stairs as three parts.
fn building(storeys: usize) -> [Part; 3] {
    let (mut slabs, mut walls, mut stairs) = (Part::default(), Part::default(), Part::default());
    slabs.cuboid([0.0, -2.0, 0.0], [BUILDING_W, SLAB, BUILDING_D]);
    let length = STEPS as f64 * RUN;
    for i in 1..=storeys {
        let top = storey_floor(i);
        let (y0, y1) = (top - SLAB, top);
        if i == storeys {
            slabs.cuboid([0.0, y0, 0.0], [BUILDING_W, y1, BUILDING_D]);
        } else {
            // The slab around the stairwell over flight i: open over the whole flight and a
            // margin, as the agent's head needs 2 m within its radius (0.6 m) everywhere.
            let (hx0, hx1) = (STAIR_X - 0.5, STAIR_X + length);
            let (hz0, hz1) = (flight_z(i) - 0.3, flight_z(i) + STAIR_WIDTH + 0.3);
            slabs.cuboid([0.0, y0, 0.0], [hx0, y1, BUILDING_D]);
            slabs.cuboid([hx1, y0, 0.0], [BUILDING_W, y1, BUILDING_D]);
            slabs.cuboid([hx0, y0, 0.0], [hx1, y1, hz0]);
            slabs.cuboid([hx0, y0, hz1], [hx1, y1, BUILDING_D]);
            // The flight from storey i - 1 up to this one.
            let base = storey_floor(i - 1);
            for k in 0..STEPS {
                let rise = base + (k + 1) as f64 * (STOREY / STEPS as f64);
                let x0 = STAIR_X + k as f64 * RUN;
                stairs.cuboid([x0, base - 0.05, flight_z(i)], [x0 + RUN, rise, flight_z(i) + STAIR_WIDTH]);
            }
        }
        // Walls of storey i - 1, from its floor to this slab; a door in the ground floor's front.
        let (w0, w1) = (storey_floor(i - 1), y0);
        if i == 1 {
            walls.cuboid([0.0, w0, 0.0], [9.0, w1, WALL]);
            walls.cuboid([11.0, w0, 0.0], [BUILDING_W, w1, WALL]);
        } else {
            walls.cuboid([0.0, w0, 0.0], [BUILDING_W, w1, WALL]);
        }
        walls.cuboid([0.0, w0, BUILDING_D - WALL], [BUILDING_W, w1, BUILDING_D]);
        walls.cuboid([0.0, w0, WALL], [WALL, w1, BUILDING_D - WALL]);
        walls.cuboid([BUILDING_W - WALL, w0, WALL], [BUILDING_W, w1, BUILDING_D - WALL]);
    }
    [slabs, walls, stairs]
}

/// Accumulates the binary buffer and the accessors of a glTF file.
#[derive(Default)]
struct Buffers {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Buffers {
    /// A primitive of `part`'s triangles (positions as `f32`).
    fn primitive(&mut self, part: &Part) -> Value {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        let start = self.bin.len();
        for p in &part.positions {
            for k in 0..3 {
                let c = p[k] as f32;
                min[k] = min[k].min(c);
                max[k] = max[k].max(c);
                self.bin.extend_from_slice(&c.to_le_bytes());
            }
        }
        self.views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": self.bin.len() - start}));
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1, "componentType": 5126, "count": part.positions.len(),
            "type": "VEC3", "min": min, "max": max
        }));
        let positions = self.accessors.len() - 1;
        let start = self.bin.len();
        for i in &part.indices {
            self.bin.extend_from_slice(&i.to_le_bytes());
        }
        self.views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": self.bin.len() - start}));
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1, "componentType": 5125, "count": part.indices.len(), "type": "SCALAR"
        }));
        json!({"attributes": {"POSITION": positions}, "indices": self.accessors.len() - 1})
    }
}

/// A yaw of `angle` radians about +y as a glTF quaternion (x, y, z, w).
fn yaw(angle: f64) -> [f64; 4] {
    [0.0, (angle / 2.0).sin(), 0.0, (angle / 2.0).cos()]
}

/// Maps a building-local point to the world, for a building at `origin` yawed by `quarter`
/// quarter-turns (0 or 1): glTF's yaw by θ sends (x, z) to (x cos θ + z sin θ, -x sin θ + z cos θ).
fn building_to_world(origin: [f64; 3], quarter: bool, p: [f64; 3]) -> [f64; 3] {
    let (x, z) = if quarter { (p[2], -p[0]) } else { (p[0], p[2]) };
    [origin[0] + x, origin[1] + p[1], origin[2] + z]
}

/// Generates the world for about `target_triangles` triangles (at least 20,000; below about
/// 40,000 the terrain may hold fewer buildings than asked, 1 at 20,000).
pub fn generate(target_triangles: usize) -> World {
    let target = target_triangles.max(20_000) as f64;
    let kinds = prop_kinds();
    let mean_prop = kinds.iter().map(|k| k.part.triangles()).sum::<usize>() as f64 / kinds.len() as f64;
    let per_cell = 2.0 + mean_prop * CELL * CELL / AREA_PER_PROP;
    let g = ((target / per_cell).sqrt().round() as usize).max(CHUNKS * 4).next_multiple_of(CHUNKS);
    let half = g as f64 * CELL / 2.0;
    let mut rng = Rng(0x005E_ED0F_3A1D);

    // Buildings on a coarse grid of pads, then plateaus away from them.
    let building_count = (g / 80).max(2);
    // Rejection sampling: a small world may not fit every pad and plateau; after this many
    // tries it holds fewer (the 100,000- and million-triangle worlds place all of theirs long
    // before).
    let mut tries = 0;
    let mut pads = Vec::new();
    while pads.len() < building_count && tries < PLACEMENT_TRIES {
        tries += 1;
        let (cx, cz) = (rng.range(-half + 60.0, half - 60.0), rng.range(-half + 60.0, half - 60.0));
        if pads.iter().all(|p: &Pad| (p.cx - cx).hypot(p.cz - cz) > 2.0 * (PAD_FLAT + PAD_BLEND) + 10.0) {
            pads.push(Pad { cx, cz, level: Terrain::waves(cx, cz) });
        }
    }
    let plateau_count = (g / 60).max(3);
    let mut plateaus = Vec::new();
    tries = 0;
    while plateaus.len() < plateau_count && tries < PLACEMENT_TRIES {
        tries += 1;
        let radius = rng.range(15.0, 40.0);
        let margin = radius + CLIFF + 10.0;
        let (cx, cz) = (rng.range(-half + margin, half - margin), rng.range(-half + margin, half - margin));
        let clear_of_pads = pads.iter().all(|p| (p.cx - cx).hypot(p.cz - cz) > radius + CLIFF + PAD_FLAT + PAD_BLEND);
        let clear_of_plateaus =
            plateaus.iter().all(|p: &Plateau| (p.cx - cx).hypot(p.cz - cz) > p.radius + radius + 2.0 * CLIFF + 10.0);
        if clear_of_pads && clear_of_plateaus {
            plateaus.push(Plateau { cx, cz, radius, height: rng.range(4.0, 8.0) });
        }
    }
    let terrain = Terrain { plateaus, pads };

    let mut buffers = Buffers::default();
    let mut meshes = Vec::new();
    let mut triangles = 0;

    // Terrain, in chunks.
    let per_chunk = g / CHUNKS;
    let mut chunk_primitives = Vec::new();
    for ci in 0..CHUNKS {
        for cj in 0..CHUNKS {
            let mut part = Part::default();
            for i in 0..=per_chunk {
                for j in 0..=per_chunk {
                    let x = (ci * per_chunk + i) as f64 * CELL - half;
                    let z = (cj * per_chunk + j) as f64 * CELL - half;
                    part.positions.push([x, terrain.height(x, z), z]);
                }
            }
            let at = |i: usize, j: usize| (i * (per_chunk + 1) + j) as u32;
            for i in 0..per_chunk {
                for j in 0..per_chunk {
                    // Counter-clockwise seen from +y, so the faces point up.
                    part.indices.extend([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
                    part.indices.extend([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
                }
            }
            triangles += part.triangles();
            chunk_primitives.push(buffers.primitive(&part));
        }
    }
    meshes.push(json!({"name": "Terrain", "primitives": chunk_primitives}));
    let mut nodes = vec![json!({"name": "World", "children": [1, 2, 3]}), json!({"name": "Terrain", "mesh": 0})];

    // Prop meshes, then the buildings' meshes.
    let prop_mesh0 = meshes.len();
    for k in &kinds {
        meshes.push(json!({"name": k.name, "primitives": [buffers.primitive(&k.part)]}));
    }
    let building_mesh0 = meshes.len();
    let mut building_triangles = [0usize; 2];
    for (n, storeys) in [3usize, 4].into_iter().enumerate() {
        let parts = building(storeys);
        building_triangles[n] = parts.iter().map(Part::triangles).sum();
        let primitives: Vec<Value> = parts.iter().map(|p| buffers.primitive(p)).collect();
        meshes.push(json!({"name": format!("building_{storeys}_storeys"), "primitives": primitives}));
    }

    // Props, grouped by sector; the props node (2) and the buildings node (3) come next.
    nodes.push(Value::Null);
    nodes.push(Value::Null);
    let sector_side = 2.0 * half / SECTORS as f64;
    let prop_count = (4.0 * half * half / AREA_PER_PROP) as usize;
    let mut by_sector: Vec<Vec<Value>> = vec![Vec::new(); SECTORS * SECTORS];
    let mut props = 0;
    for n in 0..prop_count {
        let (x, z) = (rng.range(-half + 2.0, half - 2.0), rng.range(-half + 2.0, half - 2.0));
        let kind = (rng.next() % kinds.len() as u64) as usize;
        let (angle, scale) = (rng.range(0.0, std::f64::consts::TAU), rng.range(0.7, 1.5));
        // Pads and the centre of every plateau stay clear (a spawn point on top, for the tests).
        if terrain.pads.iter().any(|p| (p.cx - x).hypot(p.cz - z) < PAD_FLAT + 4.0)
            || terrain.plateaus.iter().any(|p| (p.cx - x).hypot(p.cz - z) < 5.0)
        {
            continue;
        }
        let (r, c) = (
            (((x + half) / sector_side) as usize).min(SECTORS - 1),
            (((z + half) / sector_side) as usize).min(SECTORS - 1),
        );
        let (sx, sz) = (-half + r as f64 * sector_side, -half + c as f64 * sector_side);
        by_sector[r * SECTORS + c].push(json!({
            "name": format!("{}_{n}", kinds[kind].name),
            "mesh": prop_mesh0 + kind,
            "translation": [x - sx, terrain.height(x, z), z - sz],
            "rotation": yaw(angle),
            "scale": [scale, scale, scale],
        }));
        triangles += kinds[kind].part.triangles();
        props += 1;
    }
    let mut sector_nodes = Vec::new();
    for (k, list) in by_sector.into_iter().enumerate() {
        let (r, c) = (k / SECTORS, k % SECTORS);
        let first = nodes.len();
        let children: Vec<usize> = (first..first + list.len()).collect();
        nodes.extend(list);
        sector_nodes.push(nodes.len());
        nodes.push(json!({
            "name": format!("Sector {r} {c}"),
            "translation": [-half + r as f64 * sector_side, 0.0, -half + c as f64 * sector_side],
            "children": children,
        }));
    }
    nodes[2] = json!({"name": "Props", "children": sector_nodes});

    // Buildings, each centred on its pad.
    let mut infos = Vec::new();
    let mut building_nodes = Vec::new();
    for (k, pad) in terrain.pads.iter().enumerate() {
        let storeys = 3 + k % 2;
        let quarter = k % 3 == 1;
        // Local centre (10, 7) onto the pad's centre.
        let centre = building_to_world([0.0; 3], quarter, [BUILDING_W / 2.0, 0.0, BUILDING_D / 2.0]);
        let origin = [pad.cx - centre[0], pad.level, pad.cz - centre[2]];
        building_nodes.push(nodes.len());
        nodes.push(json!({
            "name": format!("Building {k}"),
            "mesh": building_mesh0 + storeys - 3,
            "translation": origin,
            "rotation": yaw(if quarter { std::f64::consts::FRAC_PI_2 } else { 0.0 }),
        }));
        triangles += building_triangles[storeys - 3];
        let door = building_to_world(origin, quarter, [BUILDING_W / 2.0, 0.0, -3.0]);
        infos.push(BuildingInfo {
            outside_door: [door[0], terrain.height(door[0], door[2]), door[2]],
            storey_points: (0..storeys)
                .map(|i| building_to_world(origin, quarter, [15.0, storey_floor(i), 7.0]))
                .collect(),
        });
    }
    nodes[3] = json!({"name": "Buildings", "children": building_nodes});

    let json = json!({
        "asset": {"version": "2.0", "generator": "meadow world generator"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": meshes,
        "buffers": [{"byteLength": buffers.bin.len()}],
        "bufferViews": buffers.views,
        "accessors": buffers.accessors,
    });
    let glb = crate::gltf::glb(json.to_string().as_bytes(), Some(&buffers.bin));
    let plateaus = terrain
        .plateaus
        .iter()
        .map(|p| PlateauInfo { top: [p.cx, terrain.height(p.cx, p.cz), p.cz], radius: p.radius })
        .collect();
    World { glb, triangles, props, half, buildings: infos, plateaus }
}
