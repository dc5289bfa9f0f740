import Foundation
import RelayCore

/// The one writer of a live post's content in this process. WordPress's posts have no ETag and
/// no If-Match (`class-wp-rest-posts-controller.php`), so two workers that each read the post,
/// add their photo and write it back would drop each other's photo: every worker's photo for a
/// post goes through this post's writer instead. Photos that arrive while a write is under way
/// are written together in the next one (one read and one write for all of them), so four
/// workers do not queue four round trips each.
///
/// Another process writing the same post (a second relay, an editor saving it) can still
/// overwrite a photo: the next photo's write puts back only its own, so one relay per post.
final class WordPressPostWriter: @unchecked Sendable {
    /// What one write came to, for each photo in it.
    enum Written: Equatable {
        case written
        /// The write failed: the report says why, and the photo's delivery is retried.
        case failed(DeliveryReport)
    }

    /// The writers of this process, one per post (its REST URL).
    private static let writers = LockedBox<[String: WordPressPostWriter]>([:])

    /// This process's writer of the post at `url`.
    static func of(_ url: String) -> WordPressPostWriter {
        writers.withLockedValue { writers in
            if let writer = writers[url] { return writer }
            let writer = WordPressPostWriter()
            writers[url] = writer
            return writer
        }
    }

    private let condition = NSCondition()
    private var waiting: [WordPressGallery.Image] = []
    private var results: [Int: Written] = [:]
    private var writing = false
    /// When each photo this writer put in the gallery was taken, so a late one goes in its place.
    private var taken: [Int: Date] = [:]

    /// Puts `image` in the post's gallery with `write` (given every photo waiting, and when each
    /// known one was taken; it reads the post, adds them and writes it back), and returns once
    /// a write that held it has ended. Whichever caller finds no write under way does the next.
    func add(_ image: WordPressGallery.Image, write: ([WordPressGallery.Image], _ takenAt: (Int) -> Date?) -> Written) -> Written {
        condition.lock()
        defer { condition.unlock() }
        waiting.append(image)
        while results[image.id] == nil {
            if writing {
                condition.wait()
                continue
            }
            writing = true
            let batch = waiting
            waiting.removeAll()
            for photo in batch { taken[photo.id] = photo.capturedAt }
            let known = taken
            condition.unlock()
            let result = write(batch) { known[$0] }
            condition.lock()
            writing = false
            for photo in batch { results[photo.id] = result }
            condition.broadcast()
        }
        return results.removeValue(forKey: image.id) ?? .written
    }
}
