//! With the `rvo2` feature: compiles RVO2's C++ sources from `../shared/peers/rvo2/src` (beside the
//! repository) twice, as a plain `-O2` static library and as one `-O2` translation unit (the
//! whole-program build), each with the small C driver in `cpp/`. Without the sources it prints a
//! warning and the `vs_rvo2` benchmark says they are absent, so the workspace still builds.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(rvo2_available)");
    #[cfg(feature = "rvo2")]
    rvo2::build();
}

#[cfg(feature = "rvo2")]
mod rvo2 {
    use std::path::PathBuf;

    /// RVO2's library sources (`Export.cc` only defines the export macro's header).
    const SOURCES: [&str; 6] = ["Vector2.cc", "Line.cc", "Obstacle.cc", "Agent.cc", "KdTree.cc", "RVOSimulator.cc"];

    pub fn build() {
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
        let src = manifest.join("../../../shared/peers/rvo2/src");
        println!("cargo:rerun-if-changed={}", src.display());
        println!("cargo:rerun-if-changed=cpp");
        if !src.join("RVOSimulator.cc").exists() {
            println!(
                "cargo:warning=RVO2 sources not found at {}: vs_rvo2 is built without the RVO2 peer",
                src.display()
            );
            return;
        }
        // The CMake build generates Export.h; an empty export macro is all a static build needs.
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
        std::fs::write(out.join("Export.h"), "#define RVO_EXPORT\n").expect("write Export.h");
        let base = || {
            let mut b = cc::Build::new();
            b.cpp(true)
                .std("c++11")
                .opt_level(2)
                .include(&out)
                .include(&src)
                .include(manifest.join("cpp"))
                .warnings(false)
                // cc builds position-independent code, where GCC may not inline a global
                // function in its own unit (it could be interposed); RVO2 never is.
                .flag_if_supported("-fno-semantic-interposition");
            b
        };
        let mut plain = base();
        plain.define("RVO2_FN(name)", "rvo2_plain_##name").file(manifest.join("cpp/rvo2_driver.cc"));
        for s in SOURCES {
            plain.file(src.join(s));
        }
        plain.compile("rvo2_plain");
        base()
            .define("RVO2_FN(name)", "rvo2_whole_##name")
            .file(manifest.join("cpp/rvo2_whole.cc"))
            .compile("rvo2_whole");
        println!("cargo:rustc-cfg=rvo2_available");
    }
}
