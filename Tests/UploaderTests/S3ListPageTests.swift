import Foundation
import Uploader
import XCTest

/// ListObjectsV2 answers as AWS documents them and as SeaweedFS 4.48 writes them
/// (docs/S3INBOX.md), and the query a listing is asked with.
final class S3ListPageTests: XCTestCase {
    /// The example of AWS's ListObjectsV2 reference (truncated, with a continuation token), its
    /// ETags written with `&quot;`.
    private let awsSample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
            <Name>bucket</Name>
            <Prefix/>
            <KeyCount>2</KeyCount>
            <MaxKeys>2</MaxKeys>
            <IsTruncated>true</IsTruncated>
            <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            <Contents>
                <Key>happyface.jpg</Key>
                <LastModified>2014-11-21T19:40:05.000Z</LastModified>
                <ETag>&quot;70ee1738b6b21e2c8a43f3a5ab0eee71&quot;</ETag>
                <Size>11</Size>
                <StorageClass>STANDARD</StorageClass>
            </Contents>
            <Contents>
                <Key>happyface.jpg &amp; more</Key>
                <LastModified>2014-11-21T19:40:06.500Z</LastModified>
                <ETag>"3fd9b4c1e1e0d0e0e2e3e4e5e6e7e8e9-2"</ETag>
                <Size>15728640</Size>
                <StorageClass>STANDARD</StorageClass>
            </Contents>
        </ListBucketResult>
        """

    /// SeaweedFS 4.48's shape: `&#34;` for the quotes, no milliseconds, the last page.
    private let seaweedSample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>inbox</Name><Prefix>ana/</Prefix>\
        <ContinuationToken>ana/IMG_1.jpg</ContinuationToken><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys>\
        <IsTruncated>false</IsTruncated><Contents><Key>ana/Ana L\u{F3}pez/IMG_2.jpg</Key>\
        <LastModified>2026-11-28T10:15:42Z</LastModified><ETag>&#34;5d41402abc4b2a76b9719d911017c592&#34;</ETag>\
        <Size>5</Size><Owner><ID>0</ID></Owner><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>
        """

    func testAWSDocumentedPage() throws {
        let page = try XCTUnwrap(S3ListPage.parse(Array(awsSample.utf8)))
        XCTAssertTrue(page.isTruncated)
        XCTAssertEqual(page.nextContinuationToken, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        XCTAssertEqual(
            page.objects,
            [
                S3ListPage.Object(
                    key: "happyface.jpg", etag: "70ee1738b6b21e2c8a43f3a5ab0eee71",
                    lastModified: Date(timeIntervalSince1970: 1_416_598_805),
                    size: 11),
                S3ListPage.Object(
                    key: "happyface.jpg & more", etag: "3fd9b4c1e1e0d0e0e2e3e4e5e6e7e8e9-2",
                    lastModified: Date(timeIntervalSince1970: 1_416_598_806.5), size: 15_728_640),
            ])
    }

    func testSeaweedFSPage() throws {
        let page = try XCTUnwrap(S3ListPage.parse(Array(seaweedSample.utf8)))
        XCTAssertFalse(page.isTruncated)
        XCTAssertNil(page.nextContinuationToken)
        XCTAssertEqual(
            page.objects,
            [
                S3ListPage.Object(
                    key: "ana/Ana L\u{F3}pez/IMG_2.jpg", etag: "5d41402abc4b2a76b9719d911017c592",
                    lastModified: Date(timeIntervalSince1970: 1_795_860_942), size: 5)
            ])
    }

    /// An error's XML, an empty bucket, and an entry without its size: nothing half-read.
    func testWhatIsNoPage() throws {
        let error = "<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
        XCTAssertNil(S3ListPage.parse(Array(error.utf8)))
        XCTAssertNil(S3ListPage.parse(Array("not xml".utf8)))
        let empty = "<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>"
        XCTAssertEqual(S3ListPage.parse(Array(empty.utf8)), S3ListPage(objects: [], isTruncated: false, nextContinuationToken: nil))
        let sizeless = seaweedSample.replacingOccurrences(of: "<Size>5</Size>", with: "")
        XCTAssertNil(S3ListPage.parse(Array(sizeless.utf8)))
    }

    /// Sorted by name, every byte but the unreserved ones encoded (a token's `/` and `=` too).
    func testQueryIsCanonical() {
        XCTAssertEqual(S3ListPage.query(prefix: ""), "list-type=2&prefix=")
        XCTAssertEqual(
            S3ListPage.query(
                prefix: "inbox/Ana L\u{F3}pez/", continuationToken: "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",
                startAfter: "inbox/.relay/\u{10FFFF}", maxKeys: 250),
            "continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D&list-type=2&max-keys=250"
                + "&prefix=inbox%2FAna%20L%C3%B3pez%2F&start-after=inbox%2F.relay%2F%F4%8F%BF%BF")
    }
}
