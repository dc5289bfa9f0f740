import Foundation
import RunEvents
import Testing

@testable import StatusPage

@Suite struct StatusRouterTests {
    let snapshot = StatusSnapshot(state: SampleRun.state(), now: SampleRun.now, thumbnails: ["p2": [0xFF, 0xD8, 0xFF, 0xD9]])

    func respond(_ router: StatusRouter, _ request: StatusRequest) -> StatusResponse {
        router.respond(to: request, snapshot: { snapshot })
    }

    func body(_ response: StatusResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func paths() {
        let router = StatusRouter(token: nil)
        let page = respond(router, StatusRequest(method: "GET", path: "/"))
        #expect(page.status == 200)
        #expect(page.contentType.hasPrefix("text/html"))
        #expect(body(page).contains("status.json"))
        let metrics = respond(router, StatusRequest(method: "GET", path: "/metrics"))
        #expect(metrics.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(body(metrics).contains("relay_photos_taken_total"))
        let json = respond(router, StatusRequest(method: "HEAD", path: "/status.json"))
        #expect(json.status == 200)
        #expect(json.contentType == "application/json")
        #expect(respond(router, StatusRequest(method: "GET", path: "/thumb/p2.jpg")).body == [0xFF, 0xD8, 0xFF, 0xD9])
        #expect(respond(router, StatusRequest(method: "GET", path: "/thumb/p1.jpg")).status == 404)
        #expect(respond(router, StatusRequest(method: "GET", path: "/thumb/.jpg")).status == 404)
        #expect(respond(router, StatusRequest(method: "GET", path: "/spool")).status == 404)
    }

    @Test func readOnly() {
        let response = respond(StatusRouter(token: nil), StatusRequest(method: "POST", path: "/status.json"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func theTokenIsAskedForEverywhereButHealthz() {
        let router = StatusRouter(token: "s3cret")
        for path in ["/", "/status.json", "/metrics", "/thumb/p2.jpg", "/nothing"] {
            let refused = respond(router, StatusRequest(method: "GET", path: path))
            #expect(refused.status == 401, "\(path)")
            #expect(refused.headers["WWW-Authenticate"] != nil)
        }
        #expect(respond(router, StatusRequest(method: "GET", path: "/metrics", tokenParameter: "s3cre")).status == 401)
        #expect(respond(router, StatusRequest(method: "GET", path: "/metrics", tokenParameter: "s3cret!")).status == 401)
        #expect(respond(router, StatusRequest(method: "GET", path: "/metrics", authorization: "Basic s3cret")).status == 401)
        #expect(respond(router, StatusRequest(method: "GET", path: "/metrics", tokenParameter: "s3cret")).status == 200)
        #expect(respond(router, StatusRequest(method: "GET", path: "/metrics", authorization: "Bearer s3cret")).status == 200)
        #expect(respond(router, StatusRequest(method: "GET", path: "/healthz")).status == 200)
    }

    @Test func secretsCompare() {
        #expect(StatusRouter.sameSecret("abc", "abc"))
        #expect(!StatusRouter.sameSecret("abd", "abc"))
        #expect(!StatusRouter.sameSecret("ab", "abc"))
        #expect(!StatusRouter.sameSecret("abcd", "abc"))
        #expect(!StatusRouter.sameSecret("", "abc"))
    }

    @Test func healthFollowsTheRun() {
        #expect(!RunHealth(RunState()).isHealthy)
        #expect(RunHealth(RunState()).text.hasPrefix("starting"))
        var state = SampleRun.state()
        let running = RunHealth(state)
        #expect(running.isHealthy)
        #expect(running.text.hasPrefix("ok"))
        #expect(running.text.contains("backup \"b\": unreachable"))
        state.apply(TimedEvent(at: SampleRun.now, .run(.stopping(graceSeconds: 15))))
        let stopping = RunHealth(state)
        #expect(!stopping.isHealthy)
        let response = StatusRouter(token: nil).respond(
            to: StatusRequest(method: "GET", path: "/healthz"),
            snapshot: { StatusSnapshot(state: state, now: SampleRun.now) })
        #expect(response.status == 503)
        #expect(body(response).hasPrefix("stopping"))
    }
}
