import Testing
@testable import Dashboard

@Suite("HTTP listen address")
struct ListenAddressTests {
    @Test func hostAndPortForms() throws {
        #expect(try HTTPListenAddress(parsing: "127.0.0.1:8080") == HTTPListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try HTTPListenAddress(parsing: "localhost:80") == HTTPListenAddress(host: "127.0.0.1", port: 80))
        #expect(try HTTPListenAddress(parsing: "[::1]:9000") == HTTPListenAddress(host: "::1", port: 9000))
        #expect(try HTTPListenAddress(parsing: "0.0.0.0:0").port == 0)
        #expect(try HTTPListenAddress(parsing: "[::1]:9000").description == "[::1]:9000")
    }

    @Test func badFormsSayWhatIsWrong() {
        #expect(throws: HTTPListenAddress.ParseError.missingPort("127.0.0.1")) { try HTTPListenAddress(parsing: "127.0.0.1") }
        #expect(throws: HTTPListenAddress.ParseError.badPort("127.0.0.1:99999")) { try HTTPListenAddress(parsing: "127.0.0.1:99999") }
        #expect(throws: HTTPListenAddress.ParseError.badPort("127.0.0.1:")) { try HTTPListenAddress(parsing: "127.0.0.1:") }
        #expect(throws: HTTPListenAddress.ParseError.badHost("example.com:80")) { try HTTPListenAddress(parsing: "example.com:80") }
        #expect(throws: HTTPListenAddress.ParseError.badHost("::1:80")) { try HTTPListenAddress(parsing: "::1:80") }
    }
}
