//! Off-mesh links in the shortest-path search: take-off nodes offered while expanding, and
//! landings that restart the search from a link's far end.

use super::{takeoff_of, vertex_at, Node, Search, ShortestPathQuery, LANDING};
use crate::geom::orient2d;
use crate::query::{dist2, xz};

impl ShortestPathQuery {
    /// The cost at the landing of take-off node `n` (direction `t`): the path to its root, on
    /// to the take-off point via `ia`, and the link.
    pub(super) fn landing_cost(&self, s: &Search, n: &Node, t: u32) -> f64 {
        n.g + dist2(n.root, n.ia) + dist2(n.ia, n.ib) + s.links.takeoffs[t as usize].cost
    }

    /// Adds take-off node `node` to `succ` when the link may be used and lands more cheaply
    /// than any take-off of the same direction offered before in this query. (Kept out of line:
    /// most polygons hold no take-off, and the expansion loops stay as tight as without links.)
    #[inline(never)]
    pub(super) fn offer_takeoff(&mut self, s: &Search, node: Node) {
        let Some(t) = takeoff_of(node.edge) else { return };
        if !s.takeoff_allowed(t) {
            return;
        }
        let cost = self.landing_cost(s, &node, t);
        let ti = t as usize;
        if self.link_stamp[ti] == s.gen && cost >= self.link_g[ti] {
            return;
        }
        self.link_stamp[ti] = s.gen;
        self.link_g[ti] = cost;
        self.succ.push(node);
    }

    /// Lands take-off node `n` (direction `t`): searches the polygons holding the landing point
    /// with it as the root, unless a cheaper take-off of the same direction was offered since.
    #[inline(never)]
    pub(super) fn land(&mut self, s: &Search, n: Node, t: u32, idx: u32) {
        let g = self.landing_cost(s, &n, t);
        if self.link_stamp[t as usize] == s.gen && g > self.link_g[t as usize] {
            return;
        }
        let k = s.links.takeoffs[t as usize];
        let p = xz(k.to);
        // The polygons holding the landing point: its vertex's fan, or its polygon and those
        // across the edges it lies on.
        self.landing.clear();
        match vertex_at(s.mesh, k.to_poly, p) {
            Some(v) => self.landing.extend(s.fans.fan(v).iter().map(|&(q, _)| q)),
            None => {
                self.landing.push(k.to_poly);
                let first = s.mesh.poly_first(k.to_poly);
                for e in first..first + s.mesh.poly_len(k.to_poly) {
                    let (a, b) = s.mesh.edge_endpoints(e);
                    if orient2d(xz(a), xz(b), p) <= 0.0 {
                        if let Some(q) = s.mesh.edge_neighbour(e) {
                            self.landing.push(q);
                        }
                    }
                }
            }
        }
        for i in 0..self.landing.len() {
            let q = self.landing[i];
            if s.included(q) {
                self.fan_polygon(s, q, p, LANDING + t, g, None, idx);
            }
        }
    }
}
