//! Writing the search's answer: the path from the goal node back through its roots to the start
//! (points, length, corridor, links), and the straight segment when the goal is in plain view.

use super::*;

impl ShortestPathQuery {
    /// Writes the path ending in goal node `end` into `path`.
    pub(super) fn write_path(
        &mut self,
        mesh: &QueryMesh,
        start: Location,
        goal: Location,
        end: u32,
        ends_included: (bool, bool),
        path: &mut Path,
    ) {
        // Goal side first, then reversed: goal, bend point, roots (turning vertices), start.
        let goal_node = self.nodes[end as usize];
        path.points.push(goal.point);
        if goal_node.ia != xz(goal.point) {
            let p = goal_node.ia;
            path.points.push([p[0], mesh.surface_height(goal_node.from, p), p[1]]);
        }
        path.corridor.push(goal_node.from);
        let mut root = goal_node.root_id;
        let mut i = goal_node.parent;
        let mut steps = 0;
        let links = mesh.link_state();
        while i != NONE && steps <= self.nodes.len() {
            steps += 1;
            let n = self.nodes[i as usize];
            if n.root_id != root {
                if let Some(t) = root.checked_sub(LANDING).filter(|_| root != START) {
                    // Back over a link: its landing, its take-off, and the bend on the way
                    // there. (Points are in reverse here; the link's segment index is fixed
                    // after the reversal.)
                    let k = links.takeoffs[t as usize];
                    path.points.push(k.to);
                    path.links.push(PathLink {
                        segment: path.points.len() - 1,
                        link: k.link,
                        id: k.id,
                        reversed: k.reversed,
                    });
                    path.points.push(k.from);
                    if n.ia != n.ib && n.ia != n.root {
                        path.points.push([n.ia[0], mesh.surface_height(n.from, n.ia), n.ia[1]]);
                    }
                } else if root != START {
                    path.points.push(mesh.mesh().vertices()[root as usize]);
                }
                root = n.root_id;
            }
            if is_interval(n.edge) {
                if let Some(q) = mesh.edge_neighbour(n.edge as usize) {
                    if path.corridor.last() != Some(&q) {
                        path.corridor.push(q);
                    }
                }
            }
            if path.corridor.last() != Some(&n.from) {
                path.corridor.push(n.from);
            }
            i = n.parent;
        }
        if root != START && xz(mesh.mesh().vertices()[root as usize]) != xz(start.point) {
            path.points.push(mesh.mesh().vertices()[root as usize]);
        }
        path.points.push(start.point);
        // A landing recorded at reversed index `i` is point `len - 1 - i`; its take-off is the
        // point before.
        let last = path.points.len() - 1;
        for l in &mut path.links {
            l.segment = last - l.segment - 1;
        }
        path.links.reverse();
        // The start (goal) may sit on several polygons and the search leave (arrive) through
        // another one; the corridor still begins (ends) with the located polygon unless the
        // filter excludes it.
        if path.corridor.last() != Some(&start.polygon) && ends_included.0 {
            path.corridor.push(start.polygon);
        }
        path.points.reverse();
        path.corridor.reverse();
        if path.corridor.last() != Some(&goal.polygon) && ends_included.1 {
            path.corridor.push(goal.polygon);
        }
        path.length = polyline_length(&path.points);
    }
}

/// When the segment from the start to the goal walks the mesh through included polygons only,
/// writes it as the path (it is the shortest one) and returns true; otherwise leaves `path`
/// empty and returns false.
pub(super) fn straight_segment(
    mesh: &QueryMesh,
    filter: &QueryFilter,
    start: &Location,
    goal: &Location,
    path: &mut Path,
) -> bool {
    let nav = mesh.mesh();
    let included = |poly: u32| filter.area_cost(nav, nav.data().polygons[poly as usize].area).is_some();
    if !included(start.polygon) {
        return false;
    }
    path.corridor.push(start.polygon);
    let corridor = &mut path.corridor;
    let clear = mesh.walk_reaches(start, goal, |h| corridor.push(mesh.edge_neighbour(h).unwrap_or(NONE)));
    if clear && path.corridor.iter().all(|&q| q != NONE && included(q)) {
        path.points.extend([start.point, goal.point]);
        path.length = polyline_length(&path.points);
        return true;
    }
    path.clear();
    false
}
