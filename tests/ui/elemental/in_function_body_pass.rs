fn main() {
    // Declared inside a function body, like a test or a doctest.
    #[dynd::elemental]
    fn twice(x: i32) -> i32 {
        x * 2
    }
    assert_eq!(twice(4), 8);
    assert_eq!(twice::call(::std::vec![1, 2, 3]).unwrap().to_string(), "[2, 4, 6]");
}
