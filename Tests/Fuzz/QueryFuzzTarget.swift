// libFuzzer target `query`: every query parser — `query/activity`, `query/pedometer`,
// `query/recordings` and `query/latest` requests (`HistoryQuery.parse` and `.envelope`,
// `JSONValue`, `RFC3339`) — and the reply-topic check on whatever `reply_to` they carry.
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package. The normal
// suite replays Tests/Fuzz/corpus/query through the same calls (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for kind in [HistoryQuery.Kind.activity, .pedometer, .recordings] {
        _ = HistoryQuery.parse(kind: kind, payload: bytes, now: 1_796_000_000)
    }
    let envelope = HistoryQuery.envelope(bytes)
    let policy = ReplyTopicPolicy(prefix: "edgemotion/dev-1", template: "edgemotion/{device_id}", allowedPrefix: "clients/")
    _ = policy.problem(envelope.replyTo ?? String(decoding: bytes.prefix(600), as: UTF8.self))
    return 0
}
