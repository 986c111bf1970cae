//! `contact-fmu`: package contact-dynamics scenarios as FMI 2.0 Co-Simulation FMUs.
//! The command line itself is [`contact_fmu::cli`], shared with the Python package.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(contact_fmu::cli::main_with_args(std::env::args_os()))
}
