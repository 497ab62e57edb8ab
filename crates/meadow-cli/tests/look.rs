//! `meadow export` (glTF) and `meadow render` (SVG) end to end: the files read back with a
//! glTF reader and an XML parser, and hold what the navmesh holds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::{assert_clean_failure, meadow, ok, s};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("look", name)
}

/// Bakes a fixture level into `dir` with the fixtures' settings; returns the asset's path.
fn bake(dir: &Path, level: &str) -> PathBuf {
    let nav = dir.join(format!("{level}.nav"));
    let path = format!("fixtures/levels/{level}");
    ok(meadow(&["bake", &path, "-o", s(&nav), "--quiet", "--config", "fixtures/levels/meadow.toml"]));
    nav
}

#[test]
fn export_writes_a_glb_any_gltf_reader_opens() {
    let dir = scratch("export");
    let nav = bake(&dir, "links_ladder.glb");
    let mesh = meadow::NavMesh::load(&nav).unwrap();
    let layers: BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
    assert!(layers.len() >= 2 && !mesh.links().is_empty(), "the fixture has two floors and a ladder");

    let glb = dir.join("ladder.glb");
    let out = ok(meadow(&["export", s(&nav), "-o", s(&glb), "--with-level", "fixtures/levels/links_ladder.glb"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{} layers", layers.len())));
    let bytes = std::fs::read(&glb).unwrap();
    let (document, buffers, _) = gltf::import_slice(&bytes).expect("gltf imports the file");
    let names: Vec<&str> = document.nodes().filter_map(|n| n.name()).collect();
    for layer in &layers {
        assert!(names.contains(&format!("layer {layer}").as_str()), "{names:?}");
    }
    assert!(names.contains(&"off-mesh links") && names.contains(&"level"), "{names:?}");
    // Every primitive's indices point at its positions and its material exists.
    let mut modes = BTreeSet::new();
    for mesh in document.meshes() {
        for primitive in mesh.primitives() {
            assert!(primitive.material().index().is_some_and(|m| m < document.materials().count()));
            let reader = primitive.reader(|b| Some(&buffers[b.index()]));
            let count = reader.read_positions().expect("positions").count();
            if let Some(indices) = reader.read_indices() {
                assert!(indices.into_u32().all(|i| (i as usize) < count));
            }
            modes.insert(format!("{:?}", primitive.mode()));
        }
    }
    assert_eq!(modes, BTreeSet::from(["Lines".to_string(), "Triangles".to_string()]));

    // Without the level: no level node, and a smaller file.
    let alone = dir.join("alone.glb");
    ok(meadow(&["export", s(&nav), "-o", s(&alone)]));
    let (document, _, _) = gltf::import(&alone).expect("gltf imports the file");
    assert!(document.nodes().all(|n| n.name() != Some("level")));
    assert!(std::fs::metadata(&alone).unwrap().len() < bytes.len() as u64);
}

#[test]
fn export_bad_inputs_fail_in_one_line_and_keep_the_old_output() {
    let dir = scratch("export-bad");
    let nav = bake(&dir, "rooms.glb");
    let old = dir.join("old.glb");
    std::fs::write(&old, b"previous output").unwrap();
    let truncated = dir.join("truncated.nav");
    std::fs::write(&truncated, &std::fs::read(&nav).unwrap()[..200]).unwrap();

    assert_clean_failure(&meadow(&["export", s(&truncated), "-o", s(&old)]), "truncated");
    assert_clean_failure(&meadow(&["export", "fixtures/levels/rooms.glb", "-o", s(&old)]), "not a Meadow navmesh");
    assert_clean_failure(&meadow(&["export", "no/such.nav", "-o", s(&old)]), "no/such.nav");
    for (level, mentions) in [
        ("fixtures/bad/truncated.glb", "truncated"),
        ("fixtures/bad/not_gltf.glb", "not_gltf.glb"),
        ("fixtures/bad/nan_position.glb", "nan_position.glb"),
        ("no/such/level.glb", "level.glb"),
    ] {
        assert_clean_failure(&meadow(&["export", s(&nav), "-o", s(&old), "--with-level", level]), mentions);
    }
    assert_eq!(std::fs::read(&old).unwrap(), b"previous output", "a failed export must not touch the output");
    let unwritable = dir.join("no/such/dir/out.glb");
    assert_clean_failure(&meadow(&["export", s(&nav), "-o", s(&unwritable)]), "cannot write");
    let files: BTreeSet<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(files, BTreeSet::from(["old.glb", "rooms.glb.nav", "truncated.nav"].map(String::from)));
}

/// The elements of an SVG document with this `class`.
fn with_class<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants().filter(|n| n.attribute("class") == Some(class)).collect()
}

#[test]
fn render_draws_one_element_per_polygon_and_link_with_layers_islands_and_a_legend() {
    let dir = scratch("render");
    let nav = bake(&dir, "links_islands.glb");
    let mesh = meadow::NavMesh::load(&nav).unwrap();
    let layers: BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
    assert!(layers.len() >= 3 && mesh.links().len() == 2, "the fixture has a ledge, a ground and an island");
    let (from, to) = ("-7,3,0", "35,0,0");
    let out = ok(meadow(&["path", s(&nav), "--from", from, "--to", to, "--json"]));
    let path: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let corners = path["points"].as_array().unwrap().len();

    let svg = dir.join("islands.svg");
    ok(meadow(&["render", s(&nav), "-o", s(&svg), "--path", &format!("{from}:{to}")]));
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");

    let polygons = with_class(&doc, "poly");
    let ids: BTreeSet<&str> = polygons.iter().filter_map(|n| n.attribute("id")).collect();
    let wanted: BTreeSet<String> = (0..mesh.polygon_count()).map(|i| format!("poly-{i}")).collect();
    assert_eq!(ids, wanted.iter().map(String::as_str).collect(), "one <polygon> per polygon");
    assert!(polygons.iter().all(|n| n.tag_name().name() == "polygon"));
    let links = with_class(&doc, "link");
    let ids: BTreeSet<&str> = links.iter().filter_map(|n| n.attribute("id")).collect();
    let wanted: BTreeSet<String> = (0..mesh.links().len()).map(|i| format!("link-{i}")).collect();
    assert_eq!(ids, wanted.iter().map(String::as_str).collect(), "one <path> per link");
    assert!(links.iter().all(|n| n.tag_name().name() == "path"));
    // Each layer in its own colour.
    let mut fill_of_layer = std::collections::BTreeMap::new();
    for (i, p) in mesh.polygons().enumerate() {
        let fill = polygons.iter().find(|n| n.attribute("id") == Some(&format!("poly-{i}"))).unwrap();
        let fill = fill.attribute("fill").unwrap();
        assert_eq!(*fill_of_layer.entry(p.layer).or_insert(fill), fill, "one colour per layer");
    }
    let fills: BTreeSet<&str> = fill_of_layer.values().copied().collect();
    assert_eq!(fills.len(), layers.len(), "distinct colours for distinct layers");
    // Every outline ring drawn, coloured by island: three islands, three colours.
    let outlines = with_class(&doc, "island");
    assert_eq!(outlines.len(), mesh.outlines().len());
    let colours: BTreeSet<&str> = outlines.iter().filter_map(|n| n.attribute("stroke")).collect();
    assert_eq!(colours.len(), 3, "{colours:?}");
    // The path's corners, a legend and a scale bar.
    assert_eq!(with_class(&doc, "corner").len(), corners);
    let legend: Vec<&str> = with_class(&doc, "legend")[0].descendants().filter_map(|n| n.text()).collect();
    for layer in &layers {
        assert!(legend.iter().any(|t| t.starts_with(&format!("layer {layer}, area default"))), "{legend:?}");
    }
    assert!(legend.contains(&"3 islands (connected parts), outlined by colour"), "{legend:?}");
    assert!(legend.iter().any(|t| t.ends_with(" m")), "a scale bar label: {legend:?}");
    assert_eq!(with_class(&doc, "scale").len(), 1);
}

#[test]
fn render_one_layer_draws_that_layer_and_its_links_only() {
    let dir = scratch("render-layer");
    let nav = bake(&dir, "links_ladder.glb");
    let mesh = meadow::NavMesh::load(&nav).unwrap();
    let layers: BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
    for &layer in &layers {
        let svg = dir.join(format!("layer{layer}.svg"));
        ok(meadow(&["render", s(&nav), "-o", s(&svg), "--layer", &layer.to_string()]));
        let text = std::fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        let ids: BTreeSet<String> =
            with_class(&doc, "poly").iter().filter_map(|n| n.attribute("id")).map(str::to_string).collect();
        let wanted: BTreeSet<String> =
            mesh.polygons().enumerate().filter(|(_, p)| p.layer == layer).map(|(i, _)| format!("poly-{i}")).collect();
        assert_eq!(ids, wanted, "layer {layer}");
        // The ladder joins the two layers: drawn on both.
        assert_eq!(with_class(&doc, "link").len(), 1, "layer {layer}");
    }
    let old = dir.join("old.svg");
    std::fs::write(&old, b"previous output").unwrap();
    assert_clean_failure(&meadow(&["render", s(&nav), "-o", s(&old), "--layer", "99"]), "no layer 99");
    assert_eq!(std::fs::read(&old).unwrap(), b"previous output");
}
