//! Compile-time checks through the facade (trybuild): a datashape literal
//! that does not parse is a compile error on the literal.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/datashape/*_fail.rs");
    t.pass("tests/ui/datashape/*_pass.rs");
}
