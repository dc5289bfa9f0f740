import Foundation
import RelayCore

/// What the editor's page shows of the desk (issue 50): one photographer's, one camera's, at
/// least so many stars or selected in the camera, in one state (undecided by default). Read from
/// the page's address, so that a second editor can take "Anna's photos" on another phone. Pure.
struct ReviewFilter: Sendable, Equatable {
    var photographer: String?
    var camera: String?
    /// At least this many stars.
    var stars: Int?
    /// Only photos selected in the camera (rated or protected).
    var selected = false
    var state: DeskState = .undecided

    /// The query arguments the filter is read from.
    static let argumentNames = ["photographer", "camera", "stars", "selected", "state"]

    /// From a request's arguments; an empty value is no filter, an unknown state or a number of
    /// stars outside 1...5 is refused with a sentence.
    init(arguments: [String: String]) throws(FilterError) {
        func given(_ name: String) -> String? { arguments[name].flatMap { $0.isEmpty ? nil : $0 } }
        photographer = given("photographer")
        camera = given("camera")
        if let text = given("stars") {
            guard let stars = Int(text), (1...5).contains(stars) else { throw FilterError("stars is a number from 1 to 5, not '\(text)'") }
            self.stars = stars
        }
        selected = given("selected").map { ["1", "true", "yes"].contains($0) } ?? false
        if let text = given("state") {
            guard let state = DeskState(rawValue: text) else {
                throw FilterError("state is " + DeskState.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(text)'")
            }
            self.state = state
        }
    }

    init() {}

    func matches(_ photo: ReviewDesk.Photo) -> Bool {
        matches(photo, ignoring: nil)
    }

    /// Whether `photo` passes every part of the filter but `ignored` (a facet's own counts
    /// show what choosing another value would give).
    private func matches(_ photo: ReviewDesk.Photo, ignoring ignored: String?) -> Bool {
        (ignored == "photographer" || photographer == nil || photo.photographer == photographer)
            && (ignored == "camera" || camera == nil || photo.camera == camera)
            && (ignored == "stars" || stars.map { (photo.rating ?? 0) >= $0 } ?? true)
            && (ignored == "selected" || !selected || photo.selected)
            && (ignored == "state" || photo.state == state)
    }

    /// How many photos each choice of each part would show, the other parts as they are.
    func counts(_ photos: [ReviewDesk.Photo]) -> Counts {
        var counts = Counts()
        for photo in photos {
            if matches(photo, ignoring: "photographer"), let name = photo.photographer { counts.photographers[name, default: 0] += 1 }
            if matches(photo, ignoring: "camera"), let camera = photo.camera { counts.cameras[camera, default: 0] += 1 }
            if matches(photo, ignoring: "stars"), let rating = photo.rating, rating > 0 {
                for stars in 1...min(5, rating) { counts.stars[String(stars), default: 0] += 1 }
            }
            if matches(photo, ignoring: "selected"), photo.selected { counts.selected += 1 }
            if matches(photo, ignoring: "state") { counts.states[photo.state.rawValue, default: 0] += 1 }
        }
        return counts
    }

    /// Each facet's counts, as the page's filter bar shows them.
    struct Counts: Encodable, Equatable {
        var photographers: [String: Int] = [:]
        var cameras: [String: Int] = [:]
        /// "3": photos with at least three stars.
        var stars: [String: Int] = [:]
        var selected = 0
        var states: [String: Int] = [:]
    }

    struct FilterError: Error, Equatable {
        var sentence: String
        init(_ sentence: String) { self.sentence = sentence }
    }
}
