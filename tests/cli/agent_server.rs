//! `xcsh agent` against hostile and broken model servers (the tests' own
//! loopback server, writing each answer by hand): an answer is complete or
//! it is an error, every wait ends at its limit, everything the server
//! sends is bounded, a 500 is not a refused tool choice, and Ctrl-C ends
//! an open request at once. Each test checks the exit status, the last
//! line and how long the run took: the bounds are loose enough for a
//! loaded two-core machine, and far below what the server would hold the
//! agent for without the limit ([`HOLD_AT_MOST`]).

use std::io::Write as _;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use xcsh_test_support::loopback::{HOLD_AT_MOST, Loopback, RawScript, hold, repeat, write_head};

use crate::support::{Env, Output, arg, batch_rename, json_lines};

/// Slack for starting the agent (and its pack) on a loaded machine.
const SLACK: Duration = Duration::from_secs(20);

/// The model server's address for `--base-url`.
fn openai_url(loopback: &Loopback) -> String {
    format!("{}/v1", loopback.url)
}

/// `xcsh agent` with `extra` flags against `url`, the batch-rename pack
/// loaded, the task on the command line.
fn agent(env: &Env, url: &str, extra: &[&str]) -> std::process::Command {
    let pack = batch_rename();
    let mut args = vec![
        "agent",
        "--plugin",
        arg(&pack),
        "--base-url",
        url,
        "--model",
        "m",
    ];
    args.extend_from_slice(extra);
    args.push("Rename the drafts");
    env.command(&args)
}

/// Runs `command`, timing it.
fn timed(env: &Env, command: std::process::Command) -> (Output, Duration) {
    let started = Instant::now();
    let output = env.run_command(command, "");
    let took = started.elapsed();
    // For the record (`--nocapture`): how long each run took.
    eprintln!("{took:.2?}: {}", last_line(&output));
    (output, took)
}

fn last_line(output: &Output) -> &str {
    output.stdout.lines().last().unwrap_or_default()
}

fn drafts() -> Env {
    let env = Env::new();
    env.write("draft-intro.md", "intro");
    env.write("draft-usage.md", "usage");
    env
}

/// A whole Chat Completions answer with these calls (name, arguments).
fn completion(calls: &[(&str, Value)]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({"id": format!("call_{index}"), "type": "function",
                   "function": {"name": name, "arguments": arguments.to_string()}})
        })
        .collect();
    json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": "", "tool_calls": calls}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
    .to_string()
}

fn text_completion(text: &str) -> String {
    json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 3}})
    .to_string()
}

fn preview() -> (&'static str, Value) {
    (
        "batch_rename_preview",
        json!({"files": ["draft-intro.md", "draft-usage.md"],
               "rule": {"kind": "regex", "pattern": "^draft-", "replacement": "final-"}}),
    )
}

/// A whole answer with `status`, `content_type` and `body`.
fn whole(status: u16, content_type: &'static str, body: String) -> RawScript {
    Box::new(move |_, mut stream| {
        write_head(&mut stream, status, content_type, Some(body.len()));
        let _ = stream.write_all(body.as_bytes());
    })
}

/// One Chat Completions stream chunk.
fn chunk(delta: &Value) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": delta}]})
    )
}

/// Headers of an event stream, then `body`, then the connection closes.
fn stream(body: String) -> RawScript {
    Box::new(move |_, mut stream| {
        write_head(&mut stream, 200, "text/event-stream", None);
        let _ = stream.write_all(body.as_bytes());
    })
}

fn assert_failed(output: &Output, took: Duration, line: &str) {
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(last_line(output), line, "{output:?}");
    assert!(took < SLACK, "took {took:?}");
}

#[test]
fn an_empty_stream_is_a_failed_request_not_a_finished_task() {
    let env = drafts();
    let loopback = Loopback::serve_raw(vec![stream(String::new())]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &[]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server's answer is incomplete: the stream ended before any event (no data: [DONE]); if this server cannot stream this request, try --no-stream",
    );
    // Chunks without the end marker are no better.
    let loopback = Loopback::serve_raw(vec![stream(chunk(&json!({"content": "Sure, I"})))]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &[]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server's answer is incomplete: the stream ended after 1 event without data: [DONE]",
    );
    assert!(!output.stdout.contains("model: Sure"), "{output:?}");
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
}

#[test]
fn a_stream_or_body_cut_short_is_a_failed_request_on_the_anthropic_api_too() {
    let env = drafts();
    let events = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Done."}}),
    ];
    let loopback = Loopback::serve_raw(vec![stream(xcsh_test_support::loopback::events(&events))]);
    let (output, took) = timed(&env, agent(&env, &loopback.url, &["--api", "anthropic"]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server's answer is incomplete: the stream ended after 3 events without message_stop",
    );
    // A whole answer whose body stops short of its length.
    let loopback = Loopback::serve_raw(vec![Box::new(|_, mut stream: TcpStream| {
        write_head(&mut stream, 200, "application/json", Some(1000));
        let _ = stream.write_all(br#"{"content": [{"type": "te"#);
    })]);
    let (output, took) = timed(
        &env,
        agent(&env, &loopback.url, &["--api", "anthropic", "--no-stream"]),
    );
    assert_eq!(output.code, Some(1), "{output:?}");
    assert!(
        last_line(&output).starts_with(
            "Agent stopped: model request failed: the model server's answer is incomplete: the connection broke off in the middle"
        ),
        "{output:?}"
    );
    assert!(took < SLACK, "took {took:?}");
    // An empty body.
    let loopback = Loopback::serve_raw(vec![whole(200, "application/json", String::new())]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &["--no-stream"]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server's answer is incomplete: the body is empty",
    );
}

#[test]
fn a_server_that_never_sends_its_headers_is_left_at_the_time_limit() {
    let env = drafts();
    let loopback = Loopback::serve_raw(vec![Box::new(|_, stream| hold(stream))]);
    let (output, took) = timed(
        &env,
        agent(&env, &openai_url(&loopback), &["--time-limit", "2"]),
    );
    assert_failed(&output, took, "Agent stopped: time limit reached (2 s)");
    assert!(took >= Duration::from_secs(2), "took {took:?}");
    // Without a time limit, the wait for the next byte has its own.
    let loopback = Loopback::serve_raw(vec![Box::new(|_, stream| hold(stream))]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--time-limit", "0", "--read-timeout", "1.5"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server sent nothing for 1.5 s (--read-timeout)",
    );
}

#[test]
fn a_stream_that_stalls_or_trickles_is_left_at_its_limit() {
    let env = drafts();
    // Headers and a first chunk, then nothing.
    let loopback = Loopback::serve_raw(vec![Box::new(|_, mut stream| {
        write_head(&mut stream, 200, "text/event-stream", None);
        let _ = stream.write_all(chunk(&json!({"content": "Let me"})).as_bytes());
        hold(stream);
    })]);
    let (output, took) = timed(
        &env,
        agent(&env, &openai_url(&loopback), &["--read-timeout", "1"]),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server sent nothing for 1 s (--read-timeout)",
    );
    // A chunk every 200 ms, never the end: the read timeout never
    // fires; the request's own limit does, and the time limit.
    let trickle = || -> RawScript {
        Box::new(|_, mut stream| {
            write_head(&mut stream, 200, "text/event-stream", None);
            repeat(
                stream,
                chunk(&json!({"content": "."})).as_bytes(),
                Duration::from_millis(200),
            );
        })
    };
    let loopback = Loopback::serve_raw(vec![trickle()]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--read-timeout", "1", "--request-timeout", "2"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: no complete answer within 2 s (--request-timeout)",
    );
    assert!(took >= Duration::from_secs(2), "took {took:?}");
    let loopback = Loopback::serve_raw(vec![trickle()]);
    let (output, took) = timed(
        &env,
        agent(&env, &openai_url(&loopback), &["--time-limit", "2"]),
    );
    assert_failed(&output, took, "Agent stopped: time limit reached (2 s)");
}

#[test]
fn an_endless_answer_ends_at_the_answer_byte_limit_streamed_or_not() {
    let env = drafts();
    let endless = || -> RawScript {
        Box::new(|_, mut stream| {
            write_head(&mut stream, 200, "text/event-stream", None);
            repeat(
                stream,
                chunk(&json!({"content": "x".repeat(4000)})).as_bytes(),
                Duration::ZERO,
            );
        })
    };
    let loopback = Loopback::serve_raw(vec![endless()]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--max-answer-bytes", "1000000"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the answer grew past the limit of 1000000 bytes (--max-answer-bytes)",
    );
    // The default bounds it too (16 MiB).
    let loopback = Loopback::serve_raw(vec![endless()]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &[]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the answer grew past the limit of 16777216 bytes (--max-answer-bytes)",
    );
    // A whole answer that claims to be larger than the limit.
    let loopback = Loopback::serve_raw(vec![Box::new(|_, mut stream| {
        write_head(&mut stream, 200, "application/json", Some(50_000_000));
        repeat(stream, &[b' '; 4096], Duration::ZERO);
    })]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--no-stream", "--max-answer-bytes", "100000"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the answer grew past the limit of 100000 bytes (--max-answer-bytes)",
    );
}

#[test]
fn a_tool_call_with_endless_arguments_ends_at_the_argument_limit_on_both_apis() {
    let env = drafts();
    let loopback = Loopback::serve_raw(vec![Box::new(|_, mut stream| {
        write_head(&mut stream, 200, "text/event-stream", None);
        let start = chunk(
            &json!({"tool_calls": [{"index": 0, "id": "c", "type": "function",
            "function": {"name": "batch_rename_preview", "arguments": "{\"files\": [\""}}]}),
        );
        let _ = stream.write_all(start.as_bytes());
        let more = chunk(&json!({"tool_calls": [{"index": 0,
            "function": {"arguments": "a".repeat(1000)}}]}));
        repeat(stream, more.as_bytes(), Duration::ZERO);
    })]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--max-argument-bytes", "65536"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: tool call 0's arguments grew past the limit of 65536 bytes (--max-argument-bytes)",
    );
    let loopback = Loopback::serve_raw(vec![Box::new(|_, mut stream| {
        write_head(&mut stream, 200, "text/event-stream", None);
        let start = xcsh_test_support::loopback::events(&[
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "tool_use", "id": "t", "name": "batch_rename_preview", "input": {}}}),
        ]);
        let _ = stream.write_all(start.as_bytes());
        let more = xcsh_test_support::loopback::events(&[json!({"type": "content_block_delta",
            "index": 0, "delta": {"type": "input_json_delta", "partial_json": "a".repeat(1000)}})]);
        repeat(stream, more.as_bytes(), Duration::ZERO);
    })]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &loopback.url,
            &["--api", "anthropic", "--max-argument-bytes", "65536"],
        ),
    );
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: tool call 0's arguments grew past the limit of 65536 bytes (--max-argument-bytes)",
    );
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
}

#[test]
fn calls_past_the_per_answer_limit_are_refused_back_to_the_model_not_run() {
    let env = drafts();
    let many: Vec<(&str, Value)> = (0..40).map(|_| preview()).collect();
    let loopback = Loopback::serve_raw(vec![
        whole(200, "application/json", completion(&many)),
        whole(
            200,
            "application/json",
            completion(&[(
                "resolve",
                json!({"action": "discard", "reason": "too many"}),
            )]),
        ),
        whole(
            200,
            "application/json",
            completion(&[(
                "resolve",
                json!({"action": "discard", "reason": "too many"}),
            )]),
        ),
        whole(200, "application/json", text_completion("Done.")),
    ]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--no-stream", "--json", "--max-calls-per-answer", "2"],
        ),
    );
    assert!(took < SLACK, "took {took:?}");
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = json_lines(&output.stdout);
    let ran = lines.iter().filter(|l| l["event"] == "call").count();
    let not_run: Vec<&Value> = lines.iter().filter(|l| l["event"] == "notRun").collect();
    // Two previews and two discards ran; 38 calls were refused.
    assert_eq!((ran, not_run.len()), (4, 38), "{}", output.stdout);
    assert_eq!(
        not_run[0]["message"],
        "Not run: the answer made 40 tool calls and xcsh runs at most 2 of one answer (--max-calls-per-answer). Call batch_rename_preview again in a later answer if it is still needed."
    );
    // The model read a result for each of its 40 calls.
    let requests = loopback.seen();
    let results: Vec<&Value> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(results.len(), 40);
    assert_eq!(results[39]["content"], not_run[0]["message"]);
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
    // Pretty: one line per refused call.
    let loopback = Loopback::serve_raw(vec![
        whole(
            200,
            "application/json",
            completion(&[preview(), preview(), preview()]),
        ),
        whole(200, "application/json", text_completion("Done.")),
    ]);
    let output = env.run_command(
        agent(
            &env,
            &openai_url(&loopback),
            &[
                "--no-stream",
                "--max-calls-per-answer",
                "2",
                "--max-turns",
                "2",
            ],
        ),
        "",
    );
    assert!(
        output.stdout.contains("\n✗ batch_rename_preview  Not run: the answer made 3 tool calls and xcsh runs at most 2 of one answer (--max-calls-per-answer). Call batch_rename_preview again in a later answer if it is still needed.\n"),
        "{output:?}"
    );
}

#[test]
fn an_unrelated_500_is_a_failed_request_and_never_moves_the_ladder() {
    let env = drafts();
    let proxy = || {
        whole(
            500,
            "application/json",
            json!({"error": {"message": "upstream rejected the message list"}}).to_string(),
        )
    };
    let loopback = Loopback::serve_raw(vec![
        whole(200, "application/json", completion(&[preview()])),
        proxy(),
        proxy(),
        proxy(),
        // Never asked for.
        proxy(),
    ]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &["--no-stream"]));
    assert_failed(
        &output,
        took,
        "Agent stopped: model request failed: the model server answered HTTP 500: upstream rejected the message list; discarded 1 pending action (never applied)",
    );
    assert!(!output.stdout.contains("↓"), "{output:?}");
    assert!(
        !output.stdout.contains("ignored by the model"),
        "{output:?}"
    );
    let choices: Vec<Value> = loopback
        .seen()
        .iter()
        .map(|r| r.body["tool_choice"].clone())
        .collect();
    // The forced choice, then the same request without it: both fail, so
    // it is the server.
    assert_eq!(
        choices,
        [
            json!("auto"),
            json!({"type": "function", "function": {"name": "resolve"}}),
            json!("required"),
            json!("auto"),
        ]
    );
}

#[test]
fn ctrl_c_ends_an_open_request_within_a_second() {
    let env = drafts();
    let pid = Arc::new(Mutex::new((0u32, None::<Instant>)));
    let signal = Arc::clone(&pid);
    let loopback = Loopback::serve_raw(vec![
        whole(200, "application/json", completion(&[preview()])),
        Box::new(move |_, stream| {
            // The person presses Ctrl-C while the model thinks; the server
            // would hold the request for two minutes.
            let mut pid = signal.lock().unwrap();
            let status = std::process::Command::new("kill")
                .args(["-INT", &pid.0.to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            pid.1 = Some(Instant::now());
            drop(pid);
            hold(stream);
        }),
    ]);
    let mut child = agent(&env, &openai_url(&loopback), &["--no-stream"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    pid.lock().unwrap().0 = child.id();
    let status = child.wait().unwrap();
    let ended = Instant::now();
    let signalled = pid.lock().unwrap().1.expect("the request came");
    let took = ended - signalled;
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("Agent stopped: interrupted; discarded 1 pending action (never applied)")
    );
    // Within a second of the signal, plus the machine's own delays.
    eprintln!("{took:.2?} from Ctrl-C to exit");
    assert!(took < Duration::from_secs(5), "took {took:?} after Ctrl-C");
    assert!(took < HOLD_AT_MOST);
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
}

#[test]
fn a_transient_failure_is_retried_and_each_retry_is_said() {
    let env = drafts();
    let busy = || {
        whole(
            503,
            "application/json",
            json!({"error": {"message": "overloaded"}}).to_string(),
        )
    };
    let loopback = Loopback::serve_raw(vec![
        busy(),
        whole(
            200,
            "application/json",
            text_completion("Nothing to rename."),
        ),
    ]);
    let (output, took) = timed(&env, agent(&env, &openai_url(&loopback), &["--no-stream"]));
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(took < SLACK, "took {took:?}");
    assert!(
        output.stdout.contains(
            "\n↻ the model server answered HTTP 503: overloaded; retrying in 1 s (attempt 2 of 3)\nmodel: Nothing to rename.\n"
        ),
        "{output:?}"
    );
    // Nobody listening: the connection is refused each time.
    let port = xcsh_test_support::free_port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let (output, took) = timed(&env, agent(&env, &url, &["--retries", "1"]));
    assert_eq!(output.code, Some(1), "{output:?}");
    assert!(took < SLACK, "took {took:?}");
    let last = last_line(&output);
    assert!(
        last.starts_with(&format!(
            "Agent stopped: model request failed: cannot reach the model server at {url}/chat/completions: "
        )) && last.ends_with(" (after 2 attempts)"),
        "{output:?}"
    );
    assert!(output.stdout.contains("(attempt 2 of 2)"), "{output:?}");
}

#[test]
fn streamed_answers_ask_for_usage_and_the_token_limit_holds_on_them() {
    let env = drafts();
    // A preview call and its usage: the next request would pass the limit.
    let call = chunk(
        &json!({"content": "Renaming.", "tool_calls": [{"index": 0, "id": "c",
        "type": "function", "function": {"name": "batch_rename_preview",
        "arguments": preview().1.to_string()}}]}),
    );
    let with_usage = format!(
        "{call}data: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 200}})
    );
    let loopback = Loopback::serve_raw(vec![stream(with_usage)]);
    let (output, took) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &["--max-tokens", "1000", "--json"],
        ),
    );
    assert_eq!(output.code, Some(1), "{output:?}");
    assert!(took < SLACK, "took {took:?}");
    let lines = json_lines(&output.stdout);
    let end = lines.last().unwrap();
    assert_eq!(end["message"], "token limit reached (1100 of 1000 tokens)");
    assert_eq!(end["discarded"], 1);
    let request = &loopback.seen()[0];
    assert_eq!(request.body["stream"], true);
    assert_eq!(
        request.body["stream_options"],
        json!({"include_usage": true})
    );
    // A stream without usage is counted by estimate: the request's body
    // and the answer, four bytes a token.
    let without = format!("{call}data: [DONE]\n\n");
    let loopback = Loopback::serve_raw(vec![stream(without)]);
    let output = env.run_command(
        agent(
            &env,
            &openai_url(&loopback),
            &["--max-tokens", "10", "--json"],
        ),
        "",
    );
    let lines = json_lines(&output.stdout);
    let text = lines.iter().find(|l| l["event"] == "text").unwrap();
    assert_eq!(text["usage"]["estimated"], true, "{text}");
    assert!(text["usage"]["input"].as_u64().unwrap() > 100, "{text}");
    let end = lines.last().unwrap();
    assert!(
        end["message"]
            .as_str()
            .unwrap()
            .starts_with("token limit reached ("),
        "{end}"
    );
}

#[test]
fn an_ask_apply_under_the_agent_is_refused_in_the_agents_name() {
    let env = drafts();
    let loopback = Loopback::serve_raw(vec![
        whole(200, "application/json", completion(&[preview()])),
        whole(
            200,
            "application/json",
            completion(&[("resolve", json!({"action": "apply", "reason": "final"}))]),
        ),
    ]);
    let (output, _) = timed(
        &env,
        agent(
            &env,
            &openai_url(&loopback),
            &[
                "--no-stream",
                "--json",
                "--ask",
                "batch-rename",
                "--max-turns",
                "2",
            ],
        ),
    );
    let lines = json_lines(&output.stdout);
    let resolve = lines
        .iter()
        .find(|l| l["event"] == "call" && l["tool"] == "resolve")
        .expect("resolve ran");
    assert_eq!(
        resolve["result"]["content"][0]["text"],
        "Apply needs a person's approval (policy ask for batch_rename_preview), but xcsh agent has no person to ask (the task came from standard input, or standard input is not a terminal; start it with --approve-all or --decline-all to answer for one). The action is still pending."
    );
    assert!(!output.stdout.contains("xcsh run"), "{output:?}");
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
}
