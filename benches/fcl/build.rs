//! Compiles the benches' C++ shim over FCL (`fcl/shim.cpp` in this package) when
//! the bench-only `fcl` feature is on; otherwise does nothing, so ordinary
//! builds need neither FCL nor a C++ compiler.

fn main() {
    println!("cargo:rerun-if-changed=fcl/build.rs");
    #[cfg(feature = "fcl")]
    {
        println!("cargo:rerun-if-changed=fcl/shim.cpp");
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("/usr/include/eigen3")
            .file("fcl/shim.cpp")
            .compile("boxtree_fcl_shim");
        println!("cargo:rustc-link-lib=fcl");
    }
}
