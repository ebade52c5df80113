//! Hostile fixture: a plain program, the component of another world.

fn main() {
    println!("I am not a bot");
}
