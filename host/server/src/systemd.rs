//! Running as a service: readiness and the watchdog for systemd
//! (`Type=notify`, `WatchdogSec=`; nothing happens outside systemd), the
//! unit a teacher installs (`arena serve --print-systemd-unit`), and one
//! log line per request a teacher can read, with no secret in it.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use sd_notify::NotifyState;
use std::path::Path;
use std::time::Instant;

/// Tell systemd the server listens, and keep its watchdog fed from the
/// server's own runtime (a hung runtime stops feeding it: systemd restarts it).
pub fn ready() {
    let _ = sd_notify::notify(false, &[NotifyState::Ready]);
    let mut usec = 0u64;
    if sd_notify::watchdog_enabled(false, &mut usec) && usec > 0 {
        let every = std::time::Duration::from_micros(usec / 2);
        tokio::spawn(async move {
            loop {
                let _ = sd_notify::notify(false, &[NotifyState::Watchdog]);
                tokio::time::sleep(every).await;
            }
        });
    }
}

/// Tell systemd the server is stopping (open requests finish first).
pub fn stopping() {
    let _ = sd_notify::notify(false, &[NotifyState::Stopping]);
}

/// A request's path as the log shows it: a login link's secret is cut
/// (`/login/…`), a query is left out.
fn shown_path(path: &str) -> &str {
    match path.find("/login/") {
        Some(at) => &path[..at + "/login/".len()],
        None => path,
    }
}

/// One line per request on stderr: method, path (secrets cut), status and
/// milliseconds; `Authorization` headers and cookies are never written.
/// The event streams, which stay open, are logged when they open.
pub async fn log_request(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let started = Instant::now();
    let response = next.run(request).await;
    eprintln!(
        "{method} {}{} {} {} ms",
        shown_path(&path),
        if path.contains("/login/") { "…" } else { "" },
        response.status().as_u16(),
        started.elapsed().as_millis()
    );
    response
}

/// The systemd unit that serves the course in `dir` with the arena at
/// `exe` as `user`: started at boot, restarted however it ends or when it
/// hangs (the watchdog) unless systemd stopped it, stopped with SIGTERM
/// (open requests finish, running jobs are taken up again at the next
/// start), with its logs in the journal.
pub fn unit(exe: &Path, dir: &Path, listen: &str, user: &str) -> String {
    let (exe, dir) = (exe.display(), dir.display());
    format!(
        "# /etc/systemd/system/arena-course.service (written by arena serve --print-systemd-unit)\n\
         # Install: sudo cp this file there, then: sudo systemctl daemon-reload && sudo systemctl enable --now arena-course\n\
         # Logs: journalctl -u arena-course -f\n\
         [Unit]\n\
         Description=arena course server for {dir}\n\
         After=network-online.target postgresql.service\n\
         Wants=network-online.target\n\
         \n\
         [Service]\n\
         Type=notify\n\
         User={user}\n\
         ExecStart={exe} serve {dir} --listen {listen}\n\
         Restart=always\n\
         RestartSec=5\n\
         WatchdogSec=60\n\
         TimeoutStopSec=30\n\
         KillSignal=SIGTERM\n\
         LimitNOFILE=65536\n\
         NoNewPrivileges=true\n\
         ProtectSystem=strict\n\
         ProtectHome=read-only\n\
         ReadWritePaths={dir}\n\
         PrivateTmp=true\n\
         UMask=0077\n\
         \n\
         [Install]\n\
         WantedBy=multi-user.target\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_links_secret_never_reaches_the_log() {
        assert_eq!(shown_path("/login/abcDEF123"), "/login/");
        assert_eq!(shown_path("/people/3/versions/2"), "/people/3/versions/2");
    }

    #[test]
    fn the_unit_runs_the_course_as_a_notify_service_with_a_watchdog() {
        let u = unit(
            Path::new("/usr/local/bin/arena"),
            Path::new("/srv/cs101"),
            "127.0.0.1:8080",
            "arena",
        );
        for line in [
            "Type=notify",
            "ExecStart=/usr/local/bin/arena serve /srv/cs101 --listen 127.0.0.1:8080",
            "WatchdogSec=60",
            "ReadWritePaths=/srv/cs101",
            "User=arena",
        ] {
            assert!(u.lines().any(|l| l == line), "{line} in:\n{u}");
        }
    }
}
