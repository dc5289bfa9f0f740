import CGPhoto2

#if canImport(Glibc)
    import Glibc
#endif

/// A camera's free card space as libgphoto2 reports it (`gp_camera_get_storageinfo`), summed
/// over its storages; each part nil when the driver does not know it.
public struct GPhoto2StorageSpace: Equatable, Sendable {
    public var freeBytes: Int64?
    /// Shots that still fit, as the camera estimates them.
    public var freeImages: Int?

    public init(freeBytes: Int64?, freeImages: Int?) {
        self.freeBytes = freeBytes
        self.freeImages = freeImages
    }
}

extension GPhoto2Camera {
    /// The text of the driver's `batterylevel` widget ("75%", "Low"; see `GPhoto2BatteryText`),
    /// nil when the camera has none.
    public func batteryText() throws(GPhoto2Error) -> String? {
        try owner.perform { [handles] () throws(GPhoto2Error) -> String? in try handles.batteryText() }
    }

    /// The free space of the camera's storages, nil when the driver reports none.
    public func storageSpace() throws(GPhoto2Error) -> GPhoto2StorageSpace? {
        try owner.perform { [handles] () throws(GPhoto2Error) -> GPhoto2StorageSpace? in try handles.storageSpace() }
    }
}

extension Handles {
    func batteryText() throws(GPhoto2Error) -> String? {
        var widget: OpaquePointer?
        let result = gp_camera_get_single_config(camera, "batterylevel", &widget, context.pointer)
        defer { if let widget { gp_widget_free(widget) } }
        if result == GP_ERROR_BAD_PARAMETERS || result == GP_ERROR_NOT_SUPPORTED { return nil }
        try context.check(result, "read the battery level")
        var type = GP_WIDGET_TEXT
        guard let widget, gp_widget_get_type(widget, &type) >= 0, type == GP_WIDGET_TEXT else { return nil }
        var text: UnsafePointer<CChar>?
        guard gp_widget_get_value(widget, &text) >= 0, let text else { return nil }
        return String(cString: text)
    }

    func storageSpace() throws(GPhoto2Error) -> GPhoto2StorageSpace? {
        var storages: UnsafeMutablePointer<CameraStorageInformation>?
        var count: Int32 = 0
        let result = gp_camera_get_storageinfo(camera, &storages, &count, context.pointer)
        defer { free(storages) }
        if result == GP_ERROR_NOT_SUPPORTED { return nil }
        try context.check(result, "read the card's free space")
        guard let storages, count > 0 else { return nil }
        var space = GPhoto2StorageSpace(freeBytes: nil, freeImages: nil)
        for index in 0..<Int(count) {
            let storage = storages[index]
            if storage.fields.rawValue & GP_STORAGEINFO_FREESPACEKBYTES.rawValue != 0 {
                space.freeBytes = (space.freeBytes ?? 0) + Int64(min(storage.freekbytes, UInt64(Int64.max / 4096))) * 1024
            }
            if storage.fields.rawValue & GP_STORAGEINFO_FREESPACEIMAGES.rawValue != 0 {
                space.freeImages = (space.freeImages ?? 0) + Int(min(storage.freeimages, UInt64(Int32.max)))
            }
        }
        return space.freeBytes == nil && space.freeImages == nil ? nil : space
    }
}
