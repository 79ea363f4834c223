import Foundation

/// A throw-away PKI for TLS tests, generated with the `openssl` command line tool into a temporary
/// directory (removed in `deinit`): a test CA, a second unrelated CA, two server certificates and a
/// client certificate. EC P-256 keys, valid for two days.
public final class TestCertificates: @unchecked Sendable {
    public let directory: String
    /// CA that signed every certificate below.
    public var caFile: String { directory + "/ca.crt" }
    /// An unrelated CA: verifying the server with it must fail.
    public var otherCAFile: String { directory + "/other-ca.crt" }
    /// Server certificate valid for `127.0.0.1` and `localhost`.
    public var serverCertFile: String { directory + "/server.crt" }
    public var serverKeyFile: String { directory + "/server.key" }
    /// Server certificate valid only for `broker.example` (hostname verification against 127.0.0.1 fails).
    public var wrongNameCertFile: String { directory + "/wrong-name.crt" }
    public var wrongNameKeyFile: String { directory + "/wrong-name.key" }
    /// Client certificate for `require_certificate true` listeners.
    public var clientCertFile: String { directory + "/client.crt" }
    public var clientKeyFile: String { directory + "/client.key" }

    private init(directory: String) { self.directory = directory }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Generates the files. Throws `MosquittoBrokerError` naming the failing openssl command.
    public static func generate() throws -> TestCertificates {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw MosquittoBrokerError("/usr/bin/openssl not found: `apt-get install openssl`")
        }
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("edgemotion-pki-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let certs = TestCertificates(directory: dir)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try run(["req", "-x509"] + ec + ["-keyout", "\(dir)/\(ca).key", "-out", "\(dir)/\(ca).crt",
                     "-days", "2", "-subj", "/CN=EdgeMotion test \(ca)"])
        }
        let leaves = [("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                      ("wrong-name", "subjectAltName=DNS:broker.example"),
                      ("client", "extendedKeyUsage=clientAuth")]
        for (name, ext) in leaves {
            try ext.write(toFile: "\(dir)/\(name).ext", atomically: true, encoding: .utf8)
            try run(["req"] + ec + ["-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).csr",
                     "-subj", "/CN=edgemotion-\(name)"])
            try run(["x509", "-req", "-in", "\(dir)/\(name).csr", "-CA", "\(dir)/ca.crt", "-CAkey", "\(dir)/ca.key",
                     "-CAcreateserial", "-out", "\(dir)/\(name).crt", "-days", "2", "-extfile", "\(dir)/\(name).ext"])
        }
        return certs
    }

    /// `mosquitto.conf` lines turning the test listener into a TLS listener.
    public func listenerConfig(wrongName: Bool = false, requireClientCertificate: Bool = false) -> String {
        var s = "cafile \(caFile)\n"
        s += "certfile \(wrongName ? wrongNameCertFile : serverCertFile)\n"
        s += "keyfile \(wrongName ? wrongNameKeyFile : serverKeyFile)\n"
        if requireClientCertificate { s += "require_certificate true\n" }
        return s
    }

    private static func run(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = arguments
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw MosquittoBrokerError("openssl \(arguments.joined(separator: " ")) failed (\(p.terminationStatus)): "
                + String(decoding: message, as: UTF8.self))
        }
    }
}
