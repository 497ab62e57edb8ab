//! Polyanya's `.mesh` navigation meshes (format versions 2 and 3) → a Meadow [`NavMesh`], with
//! the corner visibility graph baked when the settings ask for it.
//!
//! Both versions list 2D vertices and convex polygons whose vertices run counter-clockwise, each
//! edge naming the polygon across it. Version 2 counts from 0 and marks "no polygon" with `-1`;
//! version 3 counts from 1, flags each face traversable or not, and signs each neighbour (`k > 0`
//! a traversable neighbour, `k < 0` a blocked one, `0` the mesh border). Whitespace between
//! numbers is free, and `//` starts a comment running to the end of the line.
//!
//! The mapping: Polyanya's `(x, y)` becomes Meadow's `(x, z)` on the plane `y = 0`. Meadow's
//! orientation is defined on `[x, z]` pairs ([`meadow::geom::orient2d`]), so the same numbers
//! keep the same (counter-clockwise) turn and no mirroring is needed. Only traversable faces
//! become polygons; an edge is a portal when the polygon across it is traversable and names this
//! polygon back over the same edge, and a wall otherwise. Polygons of more than 12 vertices
//! (Meadow's limit; Polyanya's merged meshes reach 33) are fanned into convex pieces joined by
//! portals. As in Polyanya, polygons are joined only across edges: where traversable polygons
//! touch at a vertex without a portal between them (two obstacles meeting at a point), the
//! vertex gets one copy per fan of polygons, so no path passes through that point (Meadow's
//! search would pass through a vertex its polygons share). Vertices no traversable face uses are
//! dropped. The asset stores the settings of
//! [`import_settings`] (a point agent: the mesh already is the free space).
//!
//! Every malformed input gives a typed [`PolyanyaError`] naming the line, polygon or edge; no
//! input panics. Polygons must be convex under exact orientation: a file whose "collinear"
//! vertices are in line only up to rounding (Polyanya's 45°-rotated test mesh) is refused with
//! [`PolyanyaError::NotConvex`].

use crate::portals::PolygonMesh;
use crate::progress::{NoProgress, Progress};
use meadow::geom::{is_convex_ccw, Point2};
use meadow::{BakeSettings, EdgeLink, NavMesh, ValidationError};
use std::path::{Path, PathBuf};

/// Most vertices of one Meadow polygon; longer Polyanya polygons are split.
const MAX_POLYGON_VERTICES: usize = 12;

/// Why a Polyanya mesh could not be read or converted. Polygons are numbered from 0 in file
/// order (in both versions), edges from 0 by Meadow's convention: edge `k` runs from the
/// polygon's vertex `k` to vertex `k + 1`.
#[derive(Debug, thiserror::Error)]
pub enum PolyanyaError {
    /// Reading the file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The first word is not `mesh`.
    #[error("not a Polyanya mesh: the file does not start with `mesh`")]
    NotAMesh,
    /// The format version is neither 2 nor 3.
    #[error("Polyanya mesh version `{0}` is not supported (versions 2 and 3 are)")]
    UnsupportedVersion(String),
    /// The file ends before the numbers its counts announce.
    #[error("the file ends early: expected {expected}")]
    UnexpectedEnd {
        /// What was expected next.
        expected: &'static str,
    },
    /// A word that is not the number expected there.
    #[error("line {line}: expected {expected}, found `{token}`")]
    BadToken {
        /// The line (counted from 1).
        line: usize,
        /// What was expected.
        expected: &'static str,
        /// The word found.
        token: String,
    },
    /// Words after the last polygon.
    #[error("line {line}: unexpected data after the last polygon")]
    TrailingData {
        /// The line (counted from 1).
        line: usize,
    },
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFiniteVertex {
        /// The vertex (counted from 0).
        vertex: usize,
    },
    /// A polygon with fewer than three vertices.
    #[error("polygon {polygon} has {count} vertices; a polygon needs at least 3")]
    TooFewVertices {
        /// The polygon.
        polygon: usize,
        /// Its vertex count.
        count: usize,
    },
    /// A vertex index out of range.
    #[error("polygon {polygon} refers to vertex {vertex} (as written), but the file has {count} vertices")]
    VertexOutOfRange {
        /// The polygon.
        polygon: usize,
        /// The index as written in the file.
        vertex: i64,
        /// The number of vertices.
        count: usize,
    },
    /// A neighbour index out of range.
    #[error("polygon {polygon} names neighbour {neighbour} (as written), but the file has {count} polygons")]
    NeighbourOutOfRange {
        /// The polygon.
        polygon: usize,
        /// The index as written in the file.
        neighbour: i64,
        /// The number of polygons.
        count: usize,
    },
    /// A traversable polygon that is not convex and counter-clockwise.
    #[error("polygon {polygon} is not convex and counter-clockwise")]
    NotConvex {
        /// The polygon.
        polygon: usize,
    },
    /// A portal whose polygon does not name this one back across the same edge.
    #[error("polygon {polygon} edge {edge} leads to polygon {neighbour}, which does not lead back across that edge")]
    AsymmetricNeighbour {
        /// The polygon.
        polygon: usize,
        /// The edge.
        edge: usize,
        /// The polygon it names.
        neighbour: usize,
    },
    /// A polygon of more than 12 vertices whose fan pieces would be degenerate.
    #[error("polygon {polygon} has {count} vertices and cannot be split into convex pieces of at most 12")]
    CannotSplit {
        /// The polygon.
        polygon: usize,
        /// Its vertex count.
        count: usize,
    },
    /// No traversable polygon.
    #[error("the mesh has no traversable polygon")]
    Empty,
    /// The converted mesh breaks a rule of Meadow's asset (coordinates beyond the contract,
    /// invalid settings).
    #[error("the imported mesh is not a valid Meadow navmesh: {0}")]
    Invalid(#[from] ValidationError),
}

/// One polygon as read from the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyanyaPolygon {
    /// Vertex indices (from 0), counter-clockwise.
    pub vertices: Vec<u32>,
    /// Per edge `k` (from vertex `k` to `k + 1`): the polygon across it (from 0), `None` for
    /// the mesh border and blocked neighbours.
    pub neighbours: Vec<Option<u32>>,
    /// Whether agents may walk on it (always true in version 2).
    pub traversable: bool,
}

/// A Polyanya mesh as read from the file, before conversion.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyanyaMesh {
    /// The format version (2 or 3).
    pub version: u32,
    /// Vertex positions `(x, y)`.
    pub vertices: Vec<Point2>,
    /// The polygons, in file order.
    pub polygons: Vec<PolyanyaPolygon>,
}

/// The settings an imported asset stores: Meadow's defaults with a point agent (radius 0, the
/// mesh already being the free space) and 12 vertices per polygon.
pub fn import_settings() -> BakeSettings {
    let mut s = BakeSettings::default();
    s.radius = 0.0;
    s.max_verts_per_poly = MAX_POLYGON_VERTICES as u8;
    s
}

/// Reads a `.mesh` file and converts it ([`parse`], then [`to_navmesh`]).
pub fn import_file(path: impl AsRef<Path>, settings: &BakeSettings) -> Result<NavMesh, PolyanyaError> {
    import_file_with_progress(path, settings, &mut NoProgress)
}

/// [`import_file`], reporting warnings (a visibility graph left out, and why) to `progress`.
pub fn import_file_with_progress(
    path: impl AsRef<Path>,
    settings: &BakeSettings,
    progress: &mut dyn Progress,
) -> Result<NavMesh, PolyanyaError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| PolyanyaError::Io { path: path.to_path_buf(), source })?;
    to_navmesh_with_progress(&parse(&String::from_utf8_lossy(&bytes))?, settings, progress)
}

/// Parses `.mesh` text and converts it ([`parse`], then [`to_navmesh`]).
pub fn import_str(text: &str, settings: &BakeSettings) -> Result<NavMesh, PolyanyaError> {
    to_navmesh(&parse(text)?, settings)
}

/// The words of the text with their line numbers, `//` comments skipped.
struct Tokens<'a> {
    lines: std::str::Lines<'a>,
    line: usize,
    words: std::str::SplitWhitespace<'a>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        Tokens { lines: text.lines(), line: 0, words: "".split_whitespace() }
    }

    fn next(&mut self) -> Option<(usize, &'a str)> {
        loop {
            if let Some(w) = self.words.next() {
                return Some((self.line, w));
            }
            let l = self.lines.next()?;
            self.line += 1;
            self.words = l.split("//").next().unwrap_or("").split_whitespace();
        }
    }

    fn word(&mut self, expected: &'static str) -> Result<(usize, &'a str), PolyanyaError> {
        self.next().ok_or(PolyanyaError::UnexpectedEnd { expected })
    }

    fn int(&mut self, expected: &'static str) -> Result<i64, PolyanyaError> {
        let (line, w) = self.word(expected)?;
        w.parse().map_err(|_| PolyanyaError::BadToken { line, expected, token: w.to_string() })
    }

    fn count(&mut self, expected: &'static str) -> Result<usize, PolyanyaError> {
        let (line, w) = self.word(expected)?;
        w.parse::<u32>().map(|c| c as usize).map_err(|_| PolyanyaError::BadToken {
            line,
            expected,
            token: w.to_string(),
        })
    }

    fn float(&mut self, expected: &'static str) -> Result<f64, PolyanyaError> {
        let (line, w) = self.word(expected)?;
        w.parse().map_err(|_| PolyanyaError::BadToken { line, expected, token: w.to_string() })
    }
}

/// Reads `.mesh` text (version 2 or 3) without converting it. Checks the syntax and every
/// index range; geometry and adjacency are checked by [`to_navmesh`].
pub fn parse(text: &str) -> Result<PolyanyaMesh, PolyanyaError> {
    let mut t = Tokens::new(text);
    match t.next() {
        Some((_, "mesh")) => {}
        _ => return Err(PolyanyaError::NotAMesh),
    }
    let version = match t.word("the format version")?.1 {
        "2" => 2,
        "3" => 3,
        other => return Err(PolyanyaError::UnsupportedVersion(other.to_string())),
    };
    let nv = t.count("the vertex count")?;
    let np = t.count("the polygon count")?;
    // Counts come from the file: reserve no more than the text could hold.
    let mut vertices = Vec::with_capacity(nv.min(text.len() / 4));
    for vertex in 0..nv {
        let p = [t.float("a vertex x")?, t.float("a vertex y")?];
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(PolyanyaError::NonFiniteVertex { vertex });
        }
        if version == 2 {
            // The polygons around the vertex: read and range-checked, not needed.
            let n = t.count("a vertex's neighbour count")?;
            for _ in 0..n {
                let (line, w) = t.word("a vertex's neighbouring polygon")?;
                match w.parse::<i64>() {
                    Ok(k) if (-1..np as i64).contains(&k) => {}
                    _ => {
                        return Err(PolyanyaError::BadToken {
                            line,
                            expected: "a polygon index or -1",
                            token: w.to_string(),
                        })
                    }
                }
            }
        }
        vertices.push(p);
    }
    let mut polygons = Vec::with_capacity(np.min(text.len() / 8));
    for polygon in 0..np {
        let traversable = if version == 3 {
            let expected = "a face's traversable flag (0 or 1)";
            match t.word(expected)? {
                (_, "0") => false,
                (_, "1") => true,
                (line, w) => return Err(PolyanyaError::BadToken { line, expected, token: w.to_string() }),
            }
        } else {
            true
        };
        let n = t.count("a polygon's vertex count")?;
        if n < 3 {
            return Err(PolyanyaError::TooFewVertices { polygon, count: n });
        }
        let base = if version == 3 { 1 } else { 0 };
        let mut vs = Vec::with_capacity(n.min(text.len()));
        for _ in 0..n {
            let k = t.int("a polygon's vertex index")?;
            let i = k - base;
            if !(0..nv as i64).contains(&i) {
                return Err(PolyanyaError::VertexOutOfRange { polygon, vertex: k, count: nv });
            }
            vs.push(i as u32);
        }
        // The file's neighbour j lies across the edge from vertex j - 1 to vertex j; Meadow's
        // edge k runs from vertex k to k + 1, so file entry j is Meadow edge j - 1.
        let mut file = Vec::with_capacity(n.min(text.len()));
        for _ in 0..n {
            let k = t.int("a polygon's neighbour index")?;
            let out_of_range = || PolyanyaError::NeighbourOutOfRange { polygon, neighbour: k, count: np };
            let across = match version {
                2 if k == -1 => None,
                2 if (0..np as i64).contains(&k) => Some(k as u32),
                3 if k <= 0 && k >= -(np as i64) => None,
                3 if k > 0 && k <= np as i64 => Some((k - 1) as u32),
                _ => return Err(out_of_range()),
            };
            file.push(across);
        }
        let neighbours = (0..n).map(|k| file[(k + 1) % n]).collect();
        polygons.push(PolyanyaPolygon { vertices: vs, neighbours, traversable });
    }
    if let Some((line, _)) = t.next() {
        return Err(PolyanyaError::TrailingData { line });
    }
    Ok(PolyanyaMesh { version, vertices, polygons })
}

/// One convex piece of a file polygon and, per edge, where its link comes from.
struct Piece {
    vertices: Vec<u32>,
    /// Per edge: `Ok(file edge)` for an edge of the file polygon, `Err(piece)` for a diagonal
    /// shared with another piece (global piece index).
    sources: Vec<Result<usize, usize>>,
}

/// Splits convex polygon `vs` (global piece indices from `first`) into fan pieces of at most
/// [`MAX_POLYGON_VERTICES`], trying each vertex in turn as the apex until every piece has positive
/// area (a fan piece along a straight run of the boundary would not); `None` when none does.
fn split(vs: &[u32], pts: &[Point2], first: usize) -> Option<Vec<Piece>> {
    let n = vs.len();
    if n <= MAX_POLYGON_VERTICES {
        return Some(vec![Piece { vertices: vs.to_vec(), sources: (0..n).map(Ok).collect() }]);
    }
    (0..n).find_map(|apex| fan(vs, pts, first, apex))
}

/// The fan pieces of [`split`] around vertex `apex`, or `None` if one is degenerate.
fn fan(vs: &[u32], pts: &[Point2], first: usize, apex: usize) -> Option<Vec<Piece>> {
    let n = vs.len();
    let at = |i: usize| vs[(apex + i) % n];
    let file_edge = |i: usize| (apex + i) % n;
    let mut pieces = Vec::new();
    let mut s = 1;
    while s < n - 1 {
        let e = (s + MAX_POLYGON_VERTICES - 2).min(n - 1);
        let index = first + pieces.len();
        let mut vertices = vec![at(0)];
        let mut sources = vec![if s == 1 { Ok(file_edge(0)) } else { Err(index - 1) }];
        for i in s..=e {
            vertices.push(at(i));
            if i < e {
                sources.push(Ok(file_edge(i)));
            }
        }
        sources.push(if e == n - 1 { Ok(file_edge(n - 1)) } else { Err(index + 1) });
        let ring: Vec<Point2> = vertices.iter().map(|&v| pts[v as usize]).collect();
        if !is_convex_ccw(&ring) {
            return None;
        }
        pieces.push(Piece { vertices, sources });
        s = e;
    }
    Some(pieces)
}

/// Gives every vertex one index per fan of polygons around it (polygons joined through portals
/// incident to the vertex), so that polygons touching only at a vertex do not share it, and
/// drops unused vertices: returns the polygons over the new indices and the new vertices.
fn split_fans(pieces: &[Piece], links: &[Vec<EdgeLink>], pts: &[Point2]) -> (Vec<Vec<u32>>, Vec<Point2>) {
    let mut first = Vec::with_capacity(pieces.len() + 1);
    first.push(0usize);
    for p in pieces {
        first.push(first[first.len() - 1] + p.vertices.len());
    }
    // Union-find over slots (a polygon's corner at one vertex).
    let mut parent: Vec<usize> = (0..first[pieces.len()]).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (p, piece) in pieces.iter().enumerate() {
        let n = piece.vertices.len();
        for (k, link) in links[p].iter().enumerate() {
            let EdgeLink::Polygon(q) = *link else { continue };
            let q = q as usize;
            for i in [k, (k + 1) % n] {
                let v = piece.vertices[i];
                if let Some(j) = pieces[q].vertices.iter().position(|&w| w == v) {
                    let (a, b) = (root(&mut parent, first[p] + i), root(&mut parent, first[q] + j));
                    parent[a] = b;
                }
            }
        }
    }
    let mut index = vec![u32::MAX; parent.len()];
    let mut vertices = Vec::new();
    let polygons = pieces
        .iter()
        .enumerate()
        .map(|(p, piece)| {
            (0..piece.vertices.len())
                .map(|i| {
                    let r = root(&mut parent, first[p] + i);
                    if index[r] == u32::MAX {
                        index[r] = vertices.len() as u32;
                        vertices.push(pts[piece.vertices[i] as usize]);
                    }
                    index[r]
                })
                .collect()
        })
        .collect();
    (polygons, vertices)
}

/// Converts a parsed mesh into a validated Meadow [`NavMesh`] with `settings` stored (see
/// [`import_settings`]); bakes the corner visibility graph when `settings.visibility` is on and
/// it is within `settings.max_visibility_ratio`.
pub fn to_navmesh(mesh: &PolyanyaMesh, settings: &BakeSettings) -> Result<NavMesh, PolyanyaError> {
    to_navmesh_with_progress(mesh, settings, &mut NoProgress)
}

/// [`to_navmesh`], reporting warnings (a visibility graph left out, and why) to `progress`.
pub fn to_navmesh_with_progress(
    mesh: &PolyanyaMesh,
    settings: &BakeSettings,
    progress: &mut dyn Progress,
) -> Result<NavMesh, PolyanyaError> {
    let polys = &mesh.polygons;
    // Geometry of every traversable polygon, then adjacency: a portal needs its neighbour to
    // name this polygon back across the reversed edge.
    for (polygon, p) in polys.iter().enumerate().filter(|(_, p)| p.traversable) {
        let ring: Vec<Point2> = p.vertices.iter().map(|&v| mesh.vertices[v as usize]).collect();
        if !is_convex_ccw(&ring) {
            return Err(PolyanyaError::NotConvex { polygon });
        }
    }
    // Per traversable polygon and edge: the (polygon, edge) across it, if a portal.
    let mut across: Vec<Vec<Option<(usize, usize)>>> = vec![Vec::new(); polys.len()];
    for (polygon, p) in polys.iter().enumerate().filter(|(_, p)| p.traversable) {
        let n = p.vertices.len();
        for k in 0..n {
            let Some(j) = p.neighbours[k].map(|j| j as usize) else {
                across[polygon].push(None);
                continue;
            };
            let q = &polys[j];
            if !q.traversable {
                across[polygon].push(None);
                continue;
            }
            let (a, b) = (p.vertices[k], p.vertices[(k + 1) % n]);
            let m = q.vertices.len();
            let back = (0..m).find(|&i| {
                q.vertices[i] == b && q.vertices[(i + 1) % m] == a && q.neighbours[i] == Some(polygon as u32)
            });
            match back {
                Some(i) if j != polygon => across[polygon].push(Some((j, i))),
                _ => return Err(PolyanyaError::AsymmetricNeighbour { polygon, edge: k, neighbour: j }),
            }
        }
    }
    // Pieces (Meadow polygons), with a map from every file edge to its piece.
    let mut pieces: Vec<Piece> = Vec::new();
    let mut edge_piece: Vec<Vec<(u32, u8)>> = vec![Vec::new(); polys.len()];
    let mut owner = Vec::new();
    for (polygon, p) in polys.iter().enumerate().filter(|(_, p)| p.traversable) {
        let first = pieces.len();
        let split = split(&p.vertices, &mesh.vertices, first)
            .ok_or(PolyanyaError::CannotSplit { polygon, count: p.vertices.len() })?;
        edge_piece[polygon] = vec![(0, 0); p.vertices.len()];
        for (i, piece) in split.iter().enumerate() {
            for (local, src) in piece.sources.iter().enumerate() {
                if let Ok(e) = src {
                    edge_piece[polygon][*e] = ((first + i) as u32, local as u8);
                }
            }
        }
        owner.extend(split.iter().map(|_| polygon));
        pieces.extend(split);
    }
    if pieces.is_empty() {
        return Err(PolyanyaError::Empty);
    }
    let mut links: Vec<Vec<EdgeLink>> = Vec::with_capacity(pieces.len());
    for (piece, &polygon) in pieces.iter().zip(&owner) {
        links.push(
            piece
                .sources
                .iter()
                .map(|src| match *src {
                    Err(other) => EdgeLink::Polygon(other as u32),
                    Ok(e) => match across[polygon][e] {
                        Some((j, i)) => EdgeLink::Polygon(edge_piece[j][i].0),
                        None => EdgeLink::Wall,
                    },
                })
                .collect(),
        );
    }
    let (polygons, vertices) = split_fans(&pieces, &links, &mesh.vertices);
    let count = polygons.len();
    let flat = PolygonMesh {
        heights: vec![0.0; vertices.len()],
        vertices,
        polygons,
        areas: vec![0; count],
        layers: vec![0; count],
    };
    let nav = crate::assemble::assemble(&flat, &links, &[], settings)?;
    if !settings.visibility {
        return Ok(nav);
    }
    // A graph above the size or work bound is left out as in a glTF bake.
    let max_work = settings.budgets(count).visibility_work;
    let (nav, outcome) = crate::visibility::with_visibility(nav, settings.max_visibility_ratio, max_work)?;
    if let crate::visibility::GraphOutcome::LeftOut(left_out) = outcome {
        progress.warn(&left_out.to_string());
    }
    Ok(nav)
}

#[cfg(test)]
mod tests;
