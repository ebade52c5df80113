//! The server's own threads: each grades the next waiting job, or else
//! checks an external worker's result, or else plays a batch of ladder
//! matches (which gives way between two matches when a job comes), and
//! sleeps only when there is nothing of the three.

use crate::ladder::Ladder;
use crate::queue::Queue;
use crate::work::Grading;
use std::sync::Arc;
use std::time::Duration;

/// Start `threads` threads of the server's own work (see the module's doc);
/// each does its work in a blocking thread of its own, so the web server's
/// threads stay free however long grading takes.
pub fn start(threads: usize, queue: Queue, ladder: Arc<Ladder>, grading: Arc<Grading>) {
    for _ in 0..threads {
        let (queue, ladder, grading) = (queue.clone(), ladder.clone(), grading.clone());
        tokio::spawn(async move {
            loop {
                match queue.claim().await {
                    Ok(Some(job)) => queue.run(job, &grading, None).await,
                    Ok(None) => {
                        // Listening before looking: matches queued while this
                        // thread looks wake it, instead of being missed until
                        // the 2 s timeout.
                        let (woken, queued) = (queue.wake.notified(), ladder.wake.notified());
                        if !queue.check_one(&grading).await && !ladder.play_own(&queue.added).await {
                            tokio::select! {
                                _ = woken => {}
                                _ = queued => {}
                                _ = tokio::time::sleep(Duration::from_secs(2)) => {}
                            }
                        }
                    }
                    // A database that failed: try again shortly, never spin.
                    Err(_) => {
                        let _ = tokio::time::timeout(Duration::from_secs(2), queue.wake.notified()).await;
                    }
                }
            }
        });
    }
}

/// The upload lane: one more thread, beside the `--workers` threads, that
/// grades only students' new uploads (never a re-grade, a version test or
/// a ladder match), its games on a thread pool of its own. A long grading
/// (a bot that spends its whole budget on every move, up to the course's
/// grading budget) fills the other threads and rayon's pool; a new upload
/// is then still checked and graded at once, here, instead of waiting
/// behind it.
pub fn start_upload_lane(queue: Queue, grading: Arc<Grading>) {
    let threads = std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1));
    let lane = match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("upload-lane-{i}"))
        .build()
    {
        Ok(pool) => Arc::new(pool),
        Err(e) => {
            eprintln!("arena serve: no upload lane ({e}); uploads wait for the grading threads");
            return;
        }
    };
    tokio::spawn(async move {
        loop {
            let woken = queue.wake.notified();
            match queue.claim_upload().await {
                Ok(Some(job)) => queue.run(job, &grading, Some(lane.clone())).await,
                Ok(None) | Err(_) => {
                    let _ = tokio::time::timeout(Duration::from_secs(2), woken).await;
                }
            }
        }
    });
}

/// With no threads of its own (`--workers 0`: every job and match waits for
/// external workers), a server still does again, on one thread, the sample
/// of external workers' jobs and matches it checks them with.
pub fn start_checker(queue: Queue, ladder: Arc<Ladder>, grading: Arc<Grading>) {
    tokio::spawn(async move {
        loop {
            if !queue.check_one(&grading).await && !ladder.check_one().await {
                tokio::select! {
                    _ = ladder.wake.notified() => {}
                    _ = queue.wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_secs(2)) => {}
                }
            }
        }
    });
}
