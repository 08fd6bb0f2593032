//! Compiles the benches' C++ shim over FCL (`benches/fcl/shim.cpp`) when
//! the bench-only `fcl` feature is on; otherwise does nothing, so ordinary
//! builds need neither FCL nor a C++ compiler.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "fcl")]
    {
        println!("cargo:rerun-if-changed=benches/fcl/shim.cpp");
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("/usr/include/eigen3")
            .file("benches/fcl/shim.cpp")
            .compile("boxtree_fcl_shim");
        println!("cargo:rustc-link-lib=fcl");
    }
}
