//! The `perftlab` binary: a thin shell over [`perftlab::cli`].

fn main() {
    std::process::exit(perftlab::cli::main());
}
