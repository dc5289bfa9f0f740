import CGPhoto2
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One camera opened through libgphoto2. Every libgphoto2 call for it runs on its own owner
/// thread (``GPhoto2OwnerThread``); callers on any thread get plain values back. Closing it
/// ends the thread.
///
/// `@unchecked Sendable`: the libgphoto2 handles are touched only by jobs on the owner thread.
public final class GPhoto2Camera: @unchecked Sendable {
    /// The port libgphoto2 opened (`usb:001,005`, `ptpip:192.168.1.2`).
    public let port: String
    /// The driver's model name (what `relay discover` lists).
    public let driverModel: String
    /// What the camera says about itself (manufacturer, model, serial).
    public let summary: GPhoto2Summary
    /// Whether the driver can fire the camera (GP_OPERATION_CAPTURE_IMAGE).
    public let canCapture: Bool

    let owner: GPhoto2OwnerThread
    let handles: Handles

    private init(
        port: String, driverModel: String, summary: GPhoto2Summary, canCapture: Bool,
        owner: GPhoto2OwnerThread, handles: Handles
    ) {
        self.port = port
        self.driverModel = driverModel
        self.summary = summary
        self.canCapture = canCapture
        self.owner = owner
        self.handles = handles
    }

    deinit { close() }

    /// Opens the camera at `portPath` (a libgphoto2 port path), or the first camera libgphoto2
    /// detects when it is nil, on a new owner thread.
    public static func open(_ portPath: String?) throws(GPhoto2Error) -> GPhoto2Camera {
        let owner = GPhoto2OwnerThread(name: "gphoto2 " + (portPath ?? "usb"))
        do {
            return try owner.perform { () throws(GPhoto2Error) -> GPhoto2Camera in
                let handles = try Handles.open(portPath)
                return GPhoto2Camera(
                    port: handles.portPath, driverModel: handles.driverModel, summary: handles.summary,
                    canCapture: handles.canCapture, owner: owner, handles: handles)
            }
        } catch {
            owner.finish()
            throw error
        }
    }

    /// The cameras libgphoto2 detects on this machine (`gp_camera_autodetect`).
    public static func detect() throws(GPhoto2Error) -> [GPhoto2DetectedCamera] {
        let owner = GPhoto2OwnerThread(name: "gphoto2 detect")
        defer { owner.finish() }
        return try owner.perform { () throws(GPhoto2Error) -> [GPhoto2DetectedCamera] in
            let context = ContextWithMessages()
            let list = try CameraListBox()
            try context.check(gp_camera_autodetect(list.pointer, context.pointer), "look for cameras")
            return list.entries().map { GPhoto2DetectedCamera(model: $0.name, port: $0.value) }
        }
    }

    /// Waits up to `milliseconds` for the camera's next event.
    public func waitForEvent(milliseconds: Int32) throws(GPhoto2Error) -> GPhoto2Event {
        try owner.perform { [handles] () throws(GPhoto2Error) -> GPhoto2Event in try handles.waitForEvent(milliseconds) }
    }

    /// The file's size, time and type, as the driver knows them.
    public func info(_ file: GPhoto2FilePath) throws(GPhoto2Error) -> GPhoto2FileInfo {
        try owner.perform { [handles] () throws(GPhoto2Error) -> GPhoto2FileInfo in try handles.info(file) }
    }

    /// Up to `count` bytes of the file from `offset` (`gp_camera_file_read`); fewer only at the
    /// end. A driver that cannot read at an offset answers ``GPhoto2Error/Kind/notSupported``.
    public func read(_ file: GPhoto2FilePath, offset: Int64, count: Int) throws(GPhoto2Error) -> [UInt8] {
        try owner.perform { [handles] () throws(GPhoto2Error) -> [UInt8] in try handles.read(file, offset: offset, count: count) }
    }

    /// The whole file (`gp_camera_file_get`), for files the driver cannot read at an offset
    /// (a capture libgphoto2 already took out of the camera's memory).
    public func download(_ file: GPhoto2FilePath) throws(GPhoto2Error) -> [UInt8] {
        try owner.perform { [handles] () throws(GPhoto2Error) -> [UInt8] in try handles.download(file) }
    }

    /// Every file on the camera, folder by folder from the root.
    public func listFiles() throws(GPhoto2Error) -> [GPhoto2FilePath] {
        try owner.perform { [handles] () throws(GPhoto2Error) -> [GPhoto2FilePath] in try handles.listFiles() }
    }

    /// Fires the shutter without waiting for the photo (`gp_camera_trigger_capture`); its file
    /// comes as an event.
    public func triggerCapture() throws(GPhoto2Error) {
        try owner.perform { [handles] () throws(GPhoto2Error) in
            try handles.context.check(gp_camera_trigger_capture(handles.camera, handles.context.pointer), "fire the camera")
        }
    }

    /// Fires the shutter and waits for the camera to save the photo (`gp_camera_capture`).
    public func capture() throws(GPhoto2Error) -> GPhoto2FilePath {
        try owner.perform { [handles] () throws(GPhoto2Error) -> GPhoto2FilePath in
            var path = CameraFilePath()
            try handles.context.check(
                gp_camera_capture(handles.camera, GP_CAPTURE_IMAGE, &path, handles.context.pointer),
                "fire the camera")
            return GPhoto2FilePath(path)
        }
    }

    /// Ends the session with the camera and the owner thread; later calls fail. Safe to call twice.
    public func close() {
        try? owner.perform { [handles] () throws(GPhoto2Error) in handles.close() }
        owner.finish()
    }
}

/// The libgphoto2 handles of one camera; used only on its owner thread.
///
/// `@unchecked Sendable`: `camera` and `isOpen` are touched only by jobs on the owner thread; the other fields are `let`.
final class Handles: @unchecked Sendable {
    let camera: UnsafeMutablePointer<Camera>
    let context: ContextWithMessages
    let portPath: String
    let driverModel: String
    let summary: GPhoto2Summary
    let canCapture: Bool
    /// The driver is libgphoto2's ptp2, which reports a protected file by withholding the delete
    /// permission; other drivers may report read-only for every file.
    let reportsProtection: Bool
    private var isOpen = true

    private init(
        camera: UnsafeMutablePointer<Camera>, context: ContextWithMessages, portPath: String,
        driverModel: String, summary: GPhoto2Summary, canCapture: Bool, reportsProtection: Bool
    ) {
        self.reportsProtection = reportsProtection
        self.camera = camera
        self.context = context
        self.portPath = portPath
        self.driverModel = driverModel
        self.summary = summary
        self.canCapture = canCapture
    }

    /// The model libgphoto2's ptp2 driver registers for PTP/IP ports (camlibs/ptp2/library.c,
    /// ptpip_models): gp_camera_init only detects USB and disk cameras by itself.
    static let ptpipModel = "PTP/IP Camera"

    static func open(_ portPath: String?) throws(GPhoto2Error) -> Handles {
        let context = ContextWithMessages()
        let what = "open the camera at " + (portPath.map { "gphoto2 port \($0)" } ?? "usb")
        var made: UnsafeMutablePointer<Camera>?
        try context.check(gp_camera_new(&made), what)
        guard let camera = made else { throw GPhoto2Error(code: GPhoto2Result.generic, operation: what) }
        do throws(GPhoto2Error) {
            if let portPath { try choosePort(portPath, camera: camera, context: context, what: what) }
            try context.check(gp_camera_init(camera, context.pointer), what)
        } catch {
            gp_camera_unref(camera)
            throw error
        }
        var abilities = CameraAbilities()
        _ = gp_camera_get_abilities(camera, &abilities)
        let model = withUnsafeBytes(of: abilities.model) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let canCapture = abilities.operations.rawValue & GP_OPERATION_CAPTURE_IMAGE.rawValue != 0
        let library = withUnsafeBytes(of: abilities.library) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        var opened = portPath ?? "usb"
        var info: GPPortInfo?
        var pathText: UnsafeMutablePointer<CChar>?
        if gp_camera_get_port_info(camera, &info) >= 0, let info, gp_port_info_get_path(info, &pathText) >= 0, let pathText {
            opened = String(cString: pathText)
        }
        let text = UnsafeMutablePointer<CameraText>.allocate(capacity: 1)
        defer { text.deallocate() }
        var summary = GPhoto2Summary()
        if gp_camera_get_summary(camera, text, context.pointer) >= 0 {
            // CameraText is one 32 KiB char array, too long for Swift to import as a field.
            summary = GPhoto2Summary(parsing: String(cString: UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)))
        }
        return Handles(
            camera: camera, context: context, portPath: opened, driverModel: model, summary: summary,
            canCapture: canCapture, reportsProtection: library.hasSuffix("ptp2.so") || library.contains("/ptp2"))
    }

    /// Points the camera at `portPath`, and for a PTP/IP port at the ptp2 driver's PTP/IP model.
    private static func choosePort(
        _ portPath: String, camera: UnsafeMutablePointer<Camera>, context: ContextWithMessages,
        what: String
    ) throws(GPhoto2Error) {
        var ports: OpaquePointer?
        try context.check(gp_port_info_list_new(&ports), what)
        defer { gp_port_info_list_free(ports) }
        try context.check(gp_port_info_list_load(ports), what)
        let index = gp_port_info_list_lookup_path(ports, portPath)
        guard index >= 0 else { throw GPhoto2Error(code: GPhoto2Result.unknownPort, operation: what) }
        var info: GPPortInfo?
        try context.check(gp_port_info_list_get_info(ports, index, &info), what)
        try context.check(gp_camera_set_port_info(camera, info), what)
        var type = GP_PORT_NONE
        guard let info, gp_port_info_get_type(info, &type) >= 0, type == GP_PORT_PTPIP else { return }
        var models: OpaquePointer?
        try context.check(gp_abilities_list_new(&models), what)
        defer { gp_abilities_list_free(models) }
        try context.check(gp_abilities_list_load(models, context.pointer), what)
        let model = gp_abilities_list_lookup_model(models, ptpipModel)
        try context.check(model, what)
        var abilities = CameraAbilities()
        try context.check(gp_abilities_list_get_abilities(models, model, &abilities), what)
        try context.check(gp_camera_set_abilities(camera, abilities), what)
    }

    func waitForEvent(_ milliseconds: Int32) throws(GPhoto2Error) -> GPhoto2Event {
        var type = GP_EVENT_UNKNOWN
        var data: UnsafeMutableRawPointer?
        try context.check(gp_camera_wait_for_event(camera, milliseconds, &type, &data, context.pointer), "wait for the camera's events")
        defer { free(data) }
        switch type {
        case GP_EVENT_TIMEOUT: return .timeout
        case GP_EVENT_CAPTURE_COMPLETE: return .captureComplete
        case GP_EVENT_FILE_ADDED:
            guard let data else { return .other }
            return .fileAdded(GPhoto2FilePath(data.assumingMemoryBound(to: CameraFilePath.self).pointee))
        case GP_EVENT_FILE_CHANGED:
            guard let data else { return .other }
            return .fileChanged(GPhoto2FilePath(data.assumingMemoryBound(to: CameraFilePath.self).pointee))
        default: return .other
        }
    }

    func info(_ file: GPhoto2FilePath) throws(GPhoto2Error) -> GPhoto2FileInfo {
        var info = CameraFileInfo()
        try context.check(gp_camera_file_get_info(camera, file.folder, file.name, &info, context.pointer), "describe \(file.name)")
        let fields = info.file.fields.rawValue
        let mime = withUnsafeBytes(of: info.file.type) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return GPhoto2FileInfo(
            size: fields & GP_FILE_INFO_SIZE.rawValue != 0 ? Int64(info.file.size) : nil,
            modified: fields & GP_FILE_INFO_MTIME.rawValue != 0 ? Int(info.file.mtime) : nil,
            mimeType: fields & GP_FILE_INFO_TYPE.rawValue != 0 && !mime.isEmpty ? mime : nil,
            protected: reportsProtection && fields & GP_FILE_INFO_PERMISSIONS.rawValue != 0
                ? info.file.permissions.rawValue & GP_FILE_PERM_DELETE.rawValue == 0 : nil)
    }

    func read(_ file: GPhoto2FilePath, offset: Int64, count: Int) throws(GPhoto2Error) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var size = UInt64(count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            gp_camera_file_read(
                camera, file.folder, file.name, GP_FILE_TYPE_NORMAL, UInt64(offset),
                buffer.baseAddress!.assumingMemoryBound(to: CChar.self), &size, context.pointer)
        }
        try context.check(result, "download \(file.name)")
        bytes.removeLast(count - Int(min(size, UInt64(count))))
        return bytes
    }

    func download(_ file: GPhoto2FilePath) throws(GPhoto2Error) -> [UInt8] {
        var made: OpaquePointer?
        try context.check(gp_file_new(&made), "download \(file.name)")
        defer { gp_file_unref(made) }
        try context.check(
            gp_camera_file_get(camera, file.folder, file.name, GP_FILE_TYPE_NORMAL, made, context.pointer),
            "download \(file.name)")
        var data: UnsafePointer<CChar>?
        var size: UInt = 0
        try context.check(gp_file_get_data_and_size(made, &data, &size), "download \(file.name)")
        guard let data, size > 0 else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: Int(size)) { Array(UnsafeBufferPointer(start: $0, count: Int(size))) }
    }

    func listFiles() throws(GPhoto2Error) -> [GPhoto2FilePath] {
        var files: [GPhoto2FilePath] = []
        var folders = ["/"]
        while let folder = folders.popLast() {
            let fileList = try CameraListBox()
            try context.check(gp_camera_folder_list_files(camera, folder, fileList.pointer, context.pointer), "list \(folder)")
            files += fileList.entries().map { GPhoto2FilePath(folder: folder, name: $0.name) }
            let folderList = try CameraListBox()
            try context.check(gp_camera_folder_list_folders(camera, folder, folderList.pointer, context.pointer), "list \(folder)")
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            folders += folderList.entries().map { prefix + $0.name }.reversed()
        }
        return files
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = gp_camera_exit(camera, context.pointer)
        gp_camera_unref(camera)
        Self.reoccupyStandardInput()
    }

    /// libgphoto2's PTP/IP disconnect closes descriptor 0 for every body but a Fujifilm (its
    /// `jpgfd` is never opened and stays 0; libgphoto2 pull request #1287, open in 2026). Left
    /// free, the next file or socket relay opens gets 0, and the next disconnect closes it under
    /// relay's feet (the tests saw a child's output file closed this way). So a freed 0 is filled
    /// with /dev/null at once; if another thread took it in between, it is left alone.
    private static func reoccupyStandardInput() {
        guard fcntl(0, F_GETFD) == -1 && errno == EBADF else { return }
        #if canImport(Glibc)
            let descriptor = Glibc.open("/dev/null", O_RDWR)
            if descriptor > 0 { Glibc.close(descriptor) }
        #else
            let descriptor = Darwin.open("/dev/null", O_RDWR)
            if descriptor > 0 { Darwin.close(descriptor) }
        #endif
    }
}

extension GPhoto2FilePath {
    fileprivate init(_ path: CameraFilePath) {
        var path = path
        let folder = withUnsafeBytes(of: &path.folder) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let name = withUnsafeBytes(of: &path.name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        self.init(folder: folder, name: name)
    }
}

/// A GPContext that keeps the last error message libgphoto2 reported through it, so that a
/// failed call's error carries the library's own words.
///
/// `@unchecked Sendable`: `lastMessage` is set by libgphoto2's error callback and read in `check`, both on the owner thread.
final class ContextWithMessages: @unchecked Sendable {
    let pointer: OpaquePointer?
    var lastMessage: String?

    init() {
        pointer = gp_context_new()
        gp_context_set_error_func(
            pointer,
            { _, text, data in
                guard let text, let data else { return }
                Unmanaged<ContextWithMessages>.fromOpaque(data).takeUnretainedValue().lastMessage = String(cString: text)
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { gp_context_unref(pointer) }

    /// Throws for a negative libgphoto2 result, with the message reported since the last check.
    func check(_ result: Int32, _ operation: String) throws(GPhoto2Error) {
        defer { lastMessage = nil }
        guard result < 0 else { return }
        throw GPhoto2Error(code: result, operation: operation, detail: lastMessage ?? String(cString: gp_result_as_string(result)))
    }
}

/// A CameraList, freed with its box.
private final class CameraListBox {
    let pointer: OpaquePointer?

    init() throws(GPhoto2Error) {
        var made: OpaquePointer?
        let result = gp_list_new(&made)
        guard result >= 0 else { throw GPhoto2Error(code: result, operation: "make a list") }
        pointer = made
    }

    deinit { gp_list_free(pointer) }

    func entries() -> [(name: String, value: String)] {
        (0..<max(0, gp_list_count(pointer))).map { index in
            var name: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            _ = gp_list_get_name(pointer, index, &name)
            _ = gp_list_get_value(pointer, index, &value)
            return (name.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? "")
        }
    }
}
