//! Compile-time checks through the facade (trybuild): a datashape literal
//! that does not parse is a compile error on the literal; every form
//! `#[elemental]` supports compiles and runs, and every form it does not
//! is a compile error pointing at the offending tokens; so does
//! `#[derive(Record)]`; writing an array's parts outside a constructor
//! takes `unsafe`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/datashape/*_fail.rs");
    t.pass("tests/ui/datashape/*_pass.rs");
    t.compile_fail("tests/ui/elemental/*_fail.rs");
    t.pass("tests/ui/elemental/*_pass.rs");
    t.compile_fail("tests/ui/record/*_fail.rs");
    t.pass("tests/ui/record/*_pass.rs");
    t.compile_fail("tests/ui/array/*_fail.rs");
}
