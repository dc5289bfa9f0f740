import Foundation
import XCTest

@testable import PTPWire

/// Locates `shared/fixtures` beside the repository root, as it lies in production and CI.
enum Fixtures {
    /// The repository root: the nearest folder above this file holding Package.swift.
    static func repositoryRoot(file: String = #filePath) -> URL? {
        var url = URL(fileURLWithPath: file)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        return nil
    }

    /// Reads `repoRoot/../shared/fixtures/<relativePath>`, failing the test with the path tried.
    static func load(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        guard let root = repositoryRoot() else {
            XCTFail("no Package.swift above \(#filePath)", file: file, line: line)
            throw FixtureMissing(path: #filePath)
        }
        let url = root.deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures")
            .appendingPathComponent(relativePath)
            .standardizedFileURL
        guard let data = FileManager.default.contents(atPath: url.path) else {
            XCTFail(
                "fixture not found at \(url.path) (expected repoRoot/../shared/fixtures/\(relativePath))",
                file: file, line: line)
            throw FixtureMissing(path: url.path)
        }
        return [UInt8](data)
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "fixture missing: \(path)" }
    }
}

/// Valid values of every packet type, used by round-trip, stream and fuzz tests.
enum Samples {
    static let guid: [UInt8] = Array(0x10...0x1F)

    static var packets: [PTPIPPacket] {
        [
            .initCommandRequest(guid: guid, friendlyName: "relay ✓", protocolVersion: PTPIPPacket.protocolVersion1_0),
            .initCommandRequest(guid: guid, friendlyName: "", protocolVersion: 0x0001_0000),
            .initCommandAck(connectionNumber: 7, guid: guid.reversed(), friendlyName: "Canon EOS R50", protocolVersion: 0x0001_0000),
            .initEventRequest(connectionNumber: 7),
            .initEventAck,
            .initFail(reason: 2),
            .operationRequest(PTPOperationRequest(code: .openSession, transactionID: 0, parameters: [1])),
            .operationRequest(PTPOperationRequest(code: .canonEOSGetEvent, transactionID: 12)),
            .operationRequest(
                PTPOperationRequest(
                    dataPhase: PTPOperationRequest.dataPhaseOut, code: .sendObjectInfo,
                    transactionID: 0xFFFF_FFFF, parameters: [1, 2, 3, 4, 5])),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 12)),
            .operationResponse(PTPOperationResponse(code: .deviceBusy, transactionID: 3, parameters: [9, 8, 7, 6, 5])),
            .event(PTPEvent(code: .objectAdded, transactionID: 0, parameters: [0x9000_0001])),
            .event(PTPEvent(code: .captureComplete, transactionID: 4, parameters: [1, 2, 3])),
            .startData(transactionID: 5, totalLength: 123_456_789_012),
            .startData(transactionID: 5, totalLength: PTPIPPacket.unknownTotalLength),
            .data(transactionID: 5, payload: Array(repeating: 0xAB, count: 17)),
            .data(transactionID: 5, payload: []),
            .cancel(transactionID: 5),
            .endData(transactionID: 5, payload: [1, 2, 3]),
            .endData(transactionID: 5, payload: []),
            .probeRequest,
            .probeResponse,
        ]
    }

    static var deviceInfo: PTPDeviceInfo {
        PTPDeviceInfo(
            standardVersion: 100, vendorExtensionID: .canon, vendorExtensionVersion: 100,
            vendorExtensionDescription: "Canon EOS", functionalMode: 0,
            operationsSupported: [0x1001, 0x1002, 0x9116, 0x9128],
            eventsSupported: [0x4002, 0xC181], devicePropertiesSupported: [0xD101],
            captureFormats: [0x3801, 0xB108], imageFormats: [0x3801, 0xB108, 0x3001],
            manufacturer: "Canon.Inc", model: "Canon EOS R50", deviceVersion: "3-1.0.0",
            serialNumber: "0123456789ab")
    }

    static var storageInfo: PTPStorageInfo {
        PTPStorageInfo(
            storageType: 4, filesystemType: 3, accessCapability: 0,
            maxCapacity: 64_000_000_000, freeSpaceInBytes: 12_345_678_901,
            freeSpaceInImages: 1234, storageDescription: "SD1", volumeLabel: "EOS_DIGITAL")
    }

    static var objectInfo: PTPObjectInfo {
        PTPObjectInfo(
            storageID: 0x0001_0001, objectFormat: .exifJPEG, protectionStatus: 0,
            compressedSize: 5_432_100, thumbFormat: .jfif, thumbCompressedSize: 12_000,
            thumbPixWidth: 160, thumbPixHeight: 120, imagePixWidth: 6000, imagePixHeight: 4000,
            imageBitDepth: 24, parentObject: 0x9000_0002, associationType: 0,
            associationDesc: 0, sequenceNumber: 0, filename: "IMG_0001.JPG",
            captureDate: "20261122T123456", modificationDate: "20261122T123457", keywords: "")
    }

    static var canonRecords: [CanonEOSEventRecord] {
        [
            .propValueChanged(property: 0xD105, value: 3, raw: []),
            .objectAdded(
                CanonObjectAdded(
                    recordType: CanonEOSEventType.objectAddedEx, handle: 0x9000_0101,
                    storageID: 0x0001_0001, format: .exifJPEG, size: 5_000_000,
                    parent: 0x9000_0002, filename: "IMG_0001.JPG")),
            .objectAdded(
                CanonObjectAdded(
                    recordType: CanonEOSEventType.objectAddedEx64, handle: 0x9000_0102,
                    storageID: 0x0001_0001, format: .canonCR3, size: 30_000_000,
                    parent: 0x9000_0002, filename: "IMG_0002.CR3")),
            .requestObjectTransfer(
                CanonObjectAdded(
                    recordType: CanonEOSEventType.requestObjectTransfer,
                    handle: 0x9000_0103, format: .exifJPEG, size: 4_000_000,
                    filename: "IMG_0003.JPG")),
            .availListChanged(property: 0xD101, values: []),
            .objectChanged(type: CanonEOSEventType.objectInfoChangedEx, handle: 0x9000_0101),
            .propValueChanged(property: 0xD1A0, value: 0x1234_5678, raw: [9, 9, 9, 9]),
            .unknown(type: 0xC1A4, size: 12),
        ]
    }
}
