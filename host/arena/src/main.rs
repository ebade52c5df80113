//! The `arena` binary: parse arguments, run, and turn any error into one line.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // The compiler process a sandbox starts for each bot file (hidden from
    // `--help`): compile the component on stdin under the limits the parent set.
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == arena::cli::COMPILE_SUBCOMMAND) {
        stop_when_the_reader_goes();
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
    // Not for a command that talks to peers: with the default SIGPIPE, a
    // client that reset its connection while `arena serve` wrote a file to
    // it ended the whole server (hyper writes with writev, which raises
    // SIGPIPE), and the next request was reset (attacks::a_worker_fetches_accepted_files_only,
    // 4 of 13 runs under load). There a gone peer is EPIPE, handled as an error.
    if !cli.talks_to_peers() {
        stop_when_the_reader_goes();
    }
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

/// Like any Unix filter, stop quietly when the reader goes away
/// (`arena games | head -1`) instead of panicking on a broken pipe.
fn stop_when_the_reader_goes() {
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE; called from
    // main before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
