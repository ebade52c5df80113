//! Class folders as learning management systems export them (Gradescope,
//! Canvas, Moodle) and as teachers make them, every way a student's folder
//! can hold no usable bot, the grade files the LMSs import, and the
//! conduct columns of the gradebook.

use arena_tests::{arena, arena_json, bot, temp};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Run grade-class on `class` (few games: these tests are about files) and
/// give (stdout, stderr, output folder).
fn grade_class(class: &Path, extra: &[&str]) -> (String, String, PathBuf) {
    // Named after the class's path within the test folders: two classes of one name stay apart.
    let within: Vec<_> = class
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .skip_while(|c| !c.starts_with("arena-tests-"))
        .skip(1)
        .collect();
    let out_dir = temp(&format!("{}-out", within.join("-")));
    let (c, o) = (class.display().to_string(), out_dir.display().to_string());
    let mut args = vec!["grade-class", "--game", "en-garde", &c, "--out", &o, "--games", "10"];
    args.extend(extra);
    let out = arena(&args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{stderr}");
    (stdout, stderr, out_dir)
}

/// The gradebook's rows as maps from column to field (fields hold no commas here
/// except in quoted reasons, which are read whole).
fn gradebook(out_dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(out_dir.join("gradebook.csv")).expect("gradebook.csv");
    let mut lines = text.lines();
    let header: Vec<String> = split_csv(lines.next().expect("a header"));
    lines
        .map(|l| header.iter().cloned().zip(split_csv(l)).collect())
        .collect()
}

/// RFC 4180 fields of one line.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

fn row<'a>(
    rows: &'a [std::collections::BTreeMap<String, String>],
    student: &str,
) -> &'a std::collections::BTreeMap<String, String> {
    rows.iter()
        .find(|r| r["student"] == student)
        .unwrap_or_else(|| panic!("no row for {student}: {rows:?}"))
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(bot(from), to).unwrap();
}

/// The total `arena grade` gives one file alone: the class grade must equal it.
fn alone(name: &str) -> f64 {
    arena_json(&[
        "grade",
        "--game",
        "en-garde",
        &bot(name).display().to_string(),
        "--games",
        "10",
        "--json",
    ])["total"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_moodle_export_is_read_by_participant_and_every_unusable_folder_gets_one_line() {
    let class = temp("moodle");
    let f = |who: &str| class.join(format!("{who}_assignsubmission_file_"));
    copy("en-garde/aggressive", &f("Ann Lee_101").join("bot.wasm"));
    // A whole project: the .wasm at the top is the bot, target/'s copies are not.
    copy("en-garde/cowardly", &f("José Núñez_102").join("mybot.wasm"));
    copy(
        "en-garde/random",
        &f("José Núñez_102").join("target/wasm32-wasip2/release/mybot.wasm"),
    );
    copy("en-garde/random", &f("Bo Chen_103").join("a.wasm"));
    copy("en-garde/cowardly", &f("Bo Chen_103").join("b.wasm"));
    // Only online text, and an empty file folder.
    std::fs::create_dir_all(f("Cy Dee_104")).unwrap();
    std::fs::create_dir_all(class.join("Cy Dee_104_assignsubmission_onlinetext_")).unwrap();
    std::fs::write(
        class.join("Cy Dee_104_assignsubmission_onlinetext_/onlinetext.html"),
        "my bot",
    )
    .unwrap();
    // Source instead of a bot, and a link that loops (unreadable, even for root).
    std::fs::create_dir_all(f("Eve Ma_105")).unwrap();
    std::fs::write(f("Eve Ma_105").join("lib.rs"), "fn main() {}").unwrap();
    std::os::unix::fs::symlink("loop", f("Eve Ma_105").join("loop")).unwrap();
    // macOS's resource fork of a bot is no bot.
    std::fs::create_dir_all(f("李雷_106").join("__MACOSX")).unwrap();
    std::fs::write(f("李雷_106").join("__MACOSX/._bot.wasm"), "fork").unwrap();
    copy("en-garde/random", &f("李雷_106").join("bot.wasm"));
    std::fs::write(class.join("grading worksheet.csv"), "x").unwrap();

    let (stdout, stderr, out) = grade_class(&class, &[]);
    assert!(stderr.contains("read as a Moodle export"), "{stderr}");
    assert!(
        stderr.contains("skipped grading worksheet.csv: not a Moodle submission"),
        "{stderr}"
    );
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 6, "one row per participant:\n{stdout}");
    // One line for each folder without a usable bot, naming the problem.
    let unusable: Vec<&str> = stderr.lines().filter(|l| l.contains("no usable bot")).collect();
    assert_eq!(unusable.len(), 3, "{stderr}");
    let reason = |s: &str| row(&rows, s)["status"].clone();
    assert!(
        reason("Bo Chen").starts_with("several .wasm files (a.wasm, b.wasm)"),
        "{}",
        reason("Bo Chen")
    );
    assert_eq!(
        reason("Cy Dee"),
        "no file was submitted, only online text; submit the built bot, a .wasm file"
    );
    assert!(
        reason("Eve Ma").starts_with("no .wasm file (found lib.rs); submit the built bot")
            && reason("Eve Ma").contains("loop: is a link that points back to itself"),
        "{}",
        reason("Eve Ma")
    );
    for r in ["Bo Chen", "Cy Dee", "Eve Ma"] {
        assert_eq!(row(&rows, r)["total"], "0");
        assert!(
            unusable.iter().any(|l| l.starts_with(&format!("{r}: "))),
            "{r}: {stderr}"
        );
    }
    // The rest are graded as they would be alone; the chosen file is named with why.
    assert_eq!(
        row(&rows, "Ann Lee")["total"].parse::<f64>().unwrap(),
        alone("en-garde/aggressive")
    );
    assert_eq!(
        row(&rows, "José Núñez")["total"].parse::<f64>().unwrap(),
        alone("en-garde/cowardly")
    );
    assert_eq!(
        row(&rows, "李雷")["total"].parse::<f64>().unwrap(),
        alone("en-garde/random")
    );
    assert!(row(&rows, "José Núñez")["chosen_because"].starts_with("mybot.wasm is the .wasm nearest the top"));
    assert!(stderr.contains("José Núñez: grading "), "{stderr}");
    assert_eq!(row(&rows, "Ann Lee")["id"], "101");
    // Each student's reports, in folders named by them.
    for folder in ["Ann_Lee", "José_Núñez", "李雷", "Bo_Chen"] {
        assert!(out.join(folder).join("report.json").is_file(), "{folder}");
    }
    // Moodle's grading worksheet: the columns it exports, matched by "Participant N".
    let sheet = std::fs::read_to_string(out.join("grades-moodle.csv")).unwrap();
    let lines: Vec<&str> = sheet.lines().collect();
    assert_eq!(
        lines[0],
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,\
         Last modified (submission),Last modified (grade),Feedback comments"
    );
    let ann = lines
        .iter()
        .find(|l| l.starts_with("Participant 101,Ann Lee,"))
        .expect("Ann's row");
    let total = &row(&rows, "Ann Lee")["total"];
    assert!(ann.contains(&format!(",{total},")), "{ann}");
    assert!(lines.iter().any(|l| l.starts_with("Participant 102,José Núñez,")));
    assert!(
        !out.join("grades-canvas.csv").exists(),
        "only the export's own LMS, unless asked"
    );
    // index.html lists them apart.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("id=\"student-李雷\"") && html.contains("id=\"student-José_Núñez\""));
}

#[test]
fn a_canvas_export_is_grouped_by_user_id_and_its_gradebook_csv_imports() {
    let class = temp("canvas");
    copy("en-garde/aggressive", &class.join("leeann_101_9001_bot.wasm"));
    copy(
        "en-garde/cowardly",
        &class.join("nunezjose_late_102_9002_my_bot-1.wasm"),
    );
    copy("en-garde/random", &class.join("chenbo_103_9003_a.wasm"));
    copy("en-garde/cowardly", &class.join("chenbo_103_9004_b.wasm"));
    std::fs::write(class.join("deecy_104_9005_report.pdf"), "pdf").unwrap();
    let (_, stderr, out) = grade_class(&class, &["--assignment", "Bot, final"]);
    assert!(stderr.contains("read as a Canvas export"), "{stderr}");
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(
        row(&rows, "nunezjose")["total"].parse::<f64>().unwrap(),
        alone("en-garde/cowardly")
    );
    assert!(row(&rows, "chenbo")["status"].starts_with("several .wasm files"));
    assert!(row(&rows, "deecy")["status"].starts_with("no .wasm file (found report.pdf)"));
    let csv = std::fs::read_to_string(out.join("grades-canvas.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "Student,ID,SIS User ID,SIS Login ID,Section,\"Bot, final\"");
    let total = &row(&rows, "leeann")["total"];
    assert!(lines.contains(&format!("leeann,101,,,,{total}").as_str()), "{csv}");
    assert!(lines.contains(&"chenbo,103,,,,0"), "{csv}");
}

#[test]
fn a_gradescope_export_names_students_from_its_metadata_and_groups_get_a_row_each() {
    // Unzipped as Gradescope ships it: one folder holding the export.
    let root = temp("gradescope");
    let class = root.join("assignment_77_export");
    copy("en-garde/aggressive", &class.join("submission_1/bot.wasm"));
    copy("en-garde/cowardly", &class.join("submission_2/src/bot.wasm"));
    std::fs::create_dir_all(class.join("submission_3")).unwrap();
    copy("en-garde/random", &class.join("submission_4/bot.wasm"));
    std::fs::write(
        class.join("submission_metadata.yml"),
        "submission_1:\n  :submitters:\n  - :name: Ann Lee\n    :sid: '2026001'\n    :email: ann@uni.edu\n  :score: 0.0\n\
         submission_2:\n  :submitters:\n  - :name: \"Zoë Ünal\"\n    :sid: '2026002'\n    :email: zoe@uni.edu\n  - :name: Bo Li\n    :sid: 2026003\n\
         submission_3:\n  :submitters:\n  - :name: Cy Dee\n    :sid: '2026004'\n",
    )
    .unwrap();
    let (_, stderr, out) = grade_class(&root, &["--export-for", "canvas", "--export-for", "moodle"]);
    assert!(stderr.contains("read as a Gradescope export"), "{stderr}");
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 4);
    assert_eq!(row(&rows, "Ann Lee")["email"], "ann@uni.edu");
    assert_eq!(
        row(&rows, "Ann Lee")["total"].parse::<f64>().unwrap(),
        alone("en-garde/aggressive")
    );
    assert_eq!(
        row(&rows, "Zoë Ünal & Bo Li")["total"].parse::<f64>().unwrap(),
        alone("en-garde/cowardly")
    );
    assert_eq!(
        row(&rows, "Cy Dee")["status"],
        "nothing was submitted (an empty folder)"
    );
    // Not in the metadata: named by its folder.
    assert!(rows.iter().any(|r| r["student"] == "submission_4"));
    // Canvas matches by the SIS User ID (the SID); each group member has a row.
    let canvas = std::fs::read_to_string(out.join("grades-canvas.csv")).unwrap();
    let group = row(&rows, "Zoë Ünal & Bo Li")["total"].clone();
    assert!(canvas.contains(&format!("Zoë Ünal,,2026002,,,{group}")), "{canvas}");
    assert!(canvas.contains(&format!("Bo Li,,2026003,,,{group}")), "{canvas}");
    // Moodle cannot match a Gradescope export's students: said in one line.
    assert!(
        stderr.contains("grades-moodle.csv: 5 of 5 students have no Moodle participant ID"),
        "{stderr}"
    );
}

#[test]
fn a_folder_per_student_and_loose_files_mix_and_a_release_build_wins_over_debug() {
    let class = temp("folders");
    copy("en-garde/aggressive", &class.join("anna.wasm"));
    copy(
        "en-garde/cowardly",
        &class.join("Ben Ode/target/wasm32-wasip2/release/ben.wasm"),
    );
    copy(
        "en-garde/random",
        &class.join("Ben Ode/target/wasm32-wasip2/debug/ben.wasm"),
    );
    std::fs::create_dir_all(class.join("empty student")).unwrap();
    std::os::unix::fs::symlink("missing.wasm", class.join("dangling.wasm")).unwrap();
    std::fs::write(class.join("README.txt"), "notes").unwrap();
    let (_, stderr, out) = grade_class(&class, &[]);
    assert!(stderr.contains("skipped README.txt: not a .wasm file"), "{stderr}");
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(
        row(&rows, "Ben Ode")["total"].parse::<f64>().unwrap(),
        alone("en-garde/cowardly")
    );
    assert!(row(&rows, "Ben Ode")["chosen_because"].contains("is the release build"));
    assert_eq!(
        row(&rows, "empty student")["status"],
        "nothing was submitted (an empty folder)"
    );
    assert!(
        row(&rows, "dangling")["status"].contains("a link to nothing"),
        "{}",
        row(&rows, "dangling")["status"]
    );
    assert_eq!(
        row(&rows, "anna")["total"].parse::<f64>().unwrap(),
        alone("en-garde/aggressive")
    );
}

#[test]
fn grade_takes_a_submission_folder_as_gradescope_gives_it() {
    let dir = temp("autograder-submission");
    copy("en-garde/aggressive", &dir.join("bot.wasm"));
    std::fs::write(dir.join("notes.md"), "hi").unwrap();
    let d = dir.display().to_string();
    let v = arena_json(&["grade", "--game", "en-garde", &d, "--games", "10", "--json"]);
    assert_eq!(v["status"], "graded");
    assert_eq!(v["total"].as_f64().unwrap(), alone("en-garde/aggressive"));
    copy("en-garde/random", &dir.join("old.wasm"));
    let gs = dir.join("results.json");
    let out = arena(&[
        "grade",
        "--game",
        "en-garde",
        &d,
        "--games",
        "10",
        "--gradescope",
        gs.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("several .wasm files (bot.wasm, old.wasm)"), "{text}");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    assert_eq!(results["score"], 0.0);
    assert!(results["output"].as_str().unwrap().contains("several .wasm files"));
}

#[test]
fn the_gradebook_shows_how_each_bot_behaved() {
    let class = temp("conduct");
    copy("en-garde/aggressive", &class.join("calm.wasm"));
    // Burns 1.5 times the per-move budget on every move (its source says so).
    copy("hostile/fuel-burner", &class.join("burner.wasm"));
    // Plays illegal moves; the course's rule 5.1 takes the round each time.
    copy("hostile/illegal", &class.join("cheat.wasm"));
    // A small budget, and a bank for every overdraft of the burner.
    let (_, _, out) = grade_class(&class, &["--fuel", "10000000", "--bank", "400000000"]);
    let rows = gradebook(&out);
    let num = |s: &str, c: &str| -> f64 { row(&rows, s)[c].parse().unwrap_or_else(|_| panic!("{s} {c}")) };
    assert!(
        num("burner", "worst_share_of_budget") >= 1.5,
        "{:?}",
        row(&rows, "burner")
    );
    assert!(num("burner", "max_fuel_per_call") >= 15_000_000.0);
    assert_eq!(num("burner", "forfeits"), 0.0);
    assert!(num("cheat", "illegal_moves") > 0.0);
    assert_eq!(
        num("cheat", "forfeits"),
        0.0,
        "under the course's rule an illegal move loses a round, not the game"
    );
    assert_eq!(num("calm", "forfeits") + num("calm", "illegal_moves"), 0.0);
    assert!(num("calm", "worst_share_of_budget") < 1.0);
    // report.json says the same, per item and in all.
    for student in ["burner", "cheat"] {
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join(student).join("report.json")).unwrap()).unwrap();
        let items = report["items"].as_array().unwrap();
        let sum = |key: &str| -> u64 { items.iter().filter_map(|i| i["conduct"][key].as_u64()).sum() };
        assert_eq!(report["conduct"]["calls"].as_u64().unwrap(), sum("calls"));
        assert_eq!(
            report["conduct"]["illegal_moves"].as_u64().unwrap(),
            sum("illegal_moves")
        );
        assert_eq!(sum("illegal_moves") as f64, num(student, "illegal_moves"));
    }
    // A bank too small for a game: rejected at the smoke game, whose
    // forfeits are still shown.
    let burner = temp("conduct-burner");
    copy("hostile/fuel-burner", &burner.join("burner.wasm"));
    let (_, _, out) = grade_class(&burner, &["--fuel", "10000000", "--bank", "100000000"]);
    let rows = gradebook(&out);
    let r = row(&rows, "burner");
    assert!(r["status"].starts_with("the smoke game was forfeited (fuel"), "{r:?}");
    assert!(r["forfeits_fuel"].parse::<u32>().unwrap() > 0);
    assert_eq!(r["forfeits"], r["forfeits_fuel"]);
}

#[test]
fn names_a_spreadsheet_would_run_and_files_that_never_end_are_one_line_each() {
    let class = temp("hostile-names");
    // Names a student chose: a formula, a comma and quotes, an output file's name.
    copy("en-garde/aggressive", &class.join("=HYPERLINK(\"x\").wasm"));
    copy("en-garde/cowardly", &class.join("Lee, Ann \"the fencer\".wasm"));
    copy("en-garde/random", &class.join("index.html.wasm"));
    // Files that are no files: a link to a device read forever, a pipe that blocks.
    std::os::unix::fs::symlink("/dev/zero", class.join("zero.wasm")).unwrap();
    let fifo = class.join("pipe.wasm");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());

    let (stdout, stderr, out) = grade_class(&class, &[]);
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 5, "{stderr}");
    // The spreadsheet shows the formula as text: the field starts with '.
    let formula = rows
        .iter()
        .find(|r| r["student"].contains("HYPERLINK"))
        .expect("the formula's row");
    assert!(formula["student"].starts_with("'=HYPERLINK("), "{formula:?}");
    assert_eq!(formula["total"].parse::<f64>().unwrap(), alone("en-garde/aggressive"));
    assert_eq!(
        row(&rows, "Lee, Ann \"the fencer\"")["total"].parse::<f64>().unwrap(),
        alone("en-garde/cowardly")
    );
    // A student named index.html gets a folder of her own; the class report is intact.
    assert!(out.join("index.html-student/report.json").is_file());
    assert!(
        std::fs::read_to_string(out.join("index.html"))
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
    // A link to a device leaves the class folder, which is refused first; a
    // named pipe inside it is no file.
    for (student, what) in [
        ("zero", "zero.wasm is a link to /dev/zero, outside the class folder"),
        ("pipe", "it is a named pipe, not a file"),
    ] {
        let status = &row(&rows, student)["status"];
        assert!(status.contains(what), "{student}: {status}");
        assert_eq!(row(&rows, student)["total"], "0");
        // One line in the printed gradebook, with the reason.
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains(&format!("{student}.wasm")))
            .collect();
        assert_eq!(lines.len(), 1, "{stdout}");
        assert!(
            lines[0].contains("rejected: ") && lines[0].contains(what),
            "{}",
            lines[0]
        );
    }
}

#[test]
fn a_link_out_of_the_class_folder_is_refused_and_no_report_folder_starts_with_a_dash() {
    let root = temp("links-out");
    let class = root.join("class");
    copy("en-garde/aggressive", &class.join("alice/bot.wasm"));
    // The teacher's own solution, beside the class folder.
    copy("en-garde/cowardly", &root.join("solution.wasm"));
    std::fs::create_dir_all(class.join("mallory")).unwrap();
    std::os::unix::fs::symlink(root.join("solution.wasm"), class.join("mallory/bot.wasm")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", class.join("eve.wasm")).unwrap();
    // A link inside the class folder is a file of the class: graded.
    std::fs::create_dir_all(class.join("bob")).unwrap();
    std::os::unix::fs::symlink(class.join("alice/bot.wasm"), class.join("bob/bot.wasm")).unwrap();
    copy("en-garde/random", &class.join("--<script>/bot.wasm"));
    let (_, stderr, out_dir) = grade_class(&class, &[]);
    let rows = gradebook(&out_dir);
    for who in ["mallory", "eve"] {
        let status = &row(&rows, who)["status"];
        assert!(
            status.contains("is a link to") && status.contains("outside the class folder"),
            "{who}: {status}"
        );
        assert!(stderr.contains(&format!("{who}: no usable bot in ")), "{stderr}");
    }
    assert!(row(&rows, "mallory")["status"].contains("solution.wasm"));
    assert!(
        row(&rows, "bob")["status"].starts_with("graded"),
        "{:?}",
        row(&rows, "bob")
    );
    // The gradebook writes the name as text for spreadsheets (a leading ').
    assert!(row(&rows, "'--<script>")["status"].starts_with("graded"));
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with('-'),
            "a report folder named {name} reads as an option to grep"
        );
    }
}

/// A tournament left with fewer than two bots still names each student it
/// left out and why (issue 48's rerun: links out of the folder and a link
/// to nothing were dropped with only "needs at least two bots, got 1").
#[test]
fn a_tournament_too_small_names_each_link_it_left_out() {
    let class = temp("links-tournament");
    copy("en-garde/aggressive", &class.join("ann.wasm"));
    std::os::unix::fs::symlink("/etc/passwd", class.join("eve.wasm")).unwrap();
    std::os::unix::fs::symlink("missing.wasm", class.join("dangling.wasm")).unwrap();
    let d = class.display().to_string();
    let out = arena_tests::arena(&[
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "--format",
        "round-robin",
        "--games",
        "2",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("needs at least two bots, got 1"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.contains("eve left out: eve.wasm is a link to /etc/passwd, outside the class folder"),
        "{line}"
    );
    assert!(
        line.contains("dangling") && line.contains("a link to nothing"),
        "{line}"
    );
}

/// A tournament reads a class folder exactly as grading does: a Moodle
/// export's students play under their names, and a student without a usable
/// bot is disqualified with grading's reason.
#[test]
fn a_tournament_reads_an_lms_export_as_grading_does() {
    let class = temp("moodle-tournament");
    let f = |who: &str| class.join(format!("{who}_assignsubmission_file_"));
    copy("en-garde/aggressive", &f("Ann Lee_101").join("bot.wasm"));
    copy("en-garde/cowardly", &f("José Núñez_102").join("mybot.wasm"));
    copy("en-garde/random", &f("Bo Chen_103").join("a.wasm"));
    copy("en-garde/cowardly", &f("Bo Chen_103").join("b.wasm"));
    std::fs::create_dir_all(f("Cy Dee_104")).unwrap();
    let d = class.display().to_string();
    let out = arena_tests::arena(&[
        "tournament",
        "--game",
        "en-garde",
        "--dir",
        &d,
        "--format",
        "round-robin",
        "--games",
        "2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("4 students, read as a Moodle export"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut names: Vec<&str> = v["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| s["name"].as_str().expect("a name"))
        .collect();
    names.sort();
    assert_eq!(names, ["Ann Lee", "José Núñez"]);
    let dq: Vec<&str> = v["disqualified"]
        .as_array()
        .expect("disqualified")
        .iter()
        .map(|d| d["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(dq, ["Bo Chen", "Cy Dee"], "{stderr}");
    assert!(stderr.contains("disqualified Bo Chen: "), "{stderr}");
}

/// The feedback an LMS shows a student says how the bot behaved, in plain
/// words: its illegal moves (the gradebook's conduct), and a bot that plays
/// like a house bot.
#[test]
fn lms_feedback_says_illegal_moves_and_a_house_bots_copy_in_words() {
    let class = temp("moodle-feedback");
    let f = |who: &str| class.join(format!("{who}_assignsubmission_file_"));
    copy("en-garde/aggressive", &f("Ann Lee_101").join("bot.wasm"));
    copy("hostile/illegal", &f("Bo Chen_103").join("bot.wasm"));
    let (_, _, out) = grade_class(&class, &[]);
    let sheet = std::fs::read_to_string(out.join("grades-moodle.csv")).unwrap();
    let line = |who: &str| {
        sheet
            .lines()
            .find(|l| l.contains(who))
            .unwrap_or_else(|| panic!("no {who} in {sheet}"))
            .to_string()
    };
    assert!(
        line("Bo Chen")
            .contains(" illegal moves in its games: under the course's rule, each loses the round (rule 5.1)"),
        "{sheet}"
    );
    assert!(
        line("Ann Lee").contains("Plays like house:aggressive: every game ended exactly as house:aggressive's did"),
        "{sheet}"
    );
}

/// A rejection in LMS feedback names the student's file as the student
/// knows it, not the teacher's path to it.
#[test]
fn a_rejection_in_lms_feedback_names_the_file_not_the_teachers_path() {
    let class = temp("moodle-rejected");
    let folder = class.join("Cy Dee_104_assignsubmission_file_");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.wasm"), "print('hello')\n").unwrap();
    copy(
        "en-garde/aggressive",
        &class.join("Ann Lee_101_assignsubmission_file_").join("bot.wasm"),
    );
    copy(
        "hostile/infinite-loop",
        &class.join("Max Roe_105_assignsubmission_file_").join("loop.wasm"),
    );
    let (_, _, out) = grade_class(&class, &[]);
    let sheet = std::fs::read_to_string(out.join("grades-moodle.csv")).unwrap();
    let line = sheet.lines().find(|l| l.contains("Cy Dee")).expect("a row");
    assert!(line.contains("Rejected: bot.wasm: not a WebAssembly file"), "{line}");
    assert!(!line.contains(&class.display().to_string()), "{line}");
    // The fix is the project's build command, whatever the language: not Rust's cargo.
    assert!(line.contains("./build.sh"), "{line}");
    assert!(!line.contains("cargo"), "{line}");
    // A smoke-game forfeit points to the page of that game, by its name in the report.
    let line = sheet.lines().find(|l| l.contains("Max Roe")).expect("a row");
    let smoke: Vec<String> = std::fs::read_dir(out.join("replays"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with("-smoke-game.html"))
        .collect();
    assert_eq!(smoke.len(), 1, "{smoke:?}");
    assert!(
        line.contains(&format!("; the game and the bot's whole log: replays/{}", smoke[0])),
        "{line}"
    );
    // The report's table of rejections names the file as the student knows it too.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    // (The teacher's own report names each file by its path; the reasons do not.)
    let start = index.find("<h2 id=\"rejected\">").expect("a table of rejections");
    let end = index.find("<h2 id=\"students\">").expect("the students");
    let rejections = &index[start..end];
    assert!(!rejections.contains(&class.display().to_string()), "{rejections}");
    let gradebook = &index[..start];
    assert!(!gradebook.contains(&class.display().to_string()), "{gradebook}");
    assert!(
        index.contains("<td class=\"why\">bot.wasm: not a WebAssembly file"),
        "{index}"
    );
}
