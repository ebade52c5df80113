//! The `arena` binary: parse arguments, run, and turn any error into one line.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Like any Unix filter, stop quietly when the reader goes away
    // (`arena games | head -1`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The compiler process a sandbox starts for each bot file (hidden from
    // `--help`): compile the component on stdin under the limits the parent set.
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == arena::cli::COMPILE_SUBCOMMAND) {
        let rest: Vec<_> = args.collect();
        let status = arena::sandbox::compile::child_main(&rest);
        return ExitCode::from(u8::try_from(status).unwrap_or(1));
    }
    let cli = match arena::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("{}", arena::cli::one_line_usage_error(&e.render().to_string()));
            return ExitCode::from(2);
        }
    };
    // Exit status: 0 done; 1 a verdict of "no" that the command itself
    // gives (a replay that differs, a bot not ready); 2 the command could
    // not do its work (a bad file or flag, or the machine failed), in one line.
    match arena::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
