//! `sqlx::migrate!` embeds the migrations when the crate compiles: a new
//! migration file must make it compile again (as sqlx's documentation says).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
