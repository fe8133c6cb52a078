//! The `blox` binary: everything is in the library's [`blox::cli`].

fn main() -> std::process::ExitCode {
    blox::cli::main()
}
