//! A tour: the paper's Figure 1 layout A, its matrix, and a conversion.
fn main() {
    println!("(tour coming)");
}
