import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public enum FileServerError: Error, CustomStringConvertible {
    case missing(String)
    case didNotStart(String)

    public var description: String {
        switch self {
        case .missing(let what): "\(what) is missing: scripts/install-deps.sh installs it"
        case .didNotStart(let detail): "the server did not start: \(detail)"
        }
    }
}

/// Processes started by one server, at any depth: killed with it, since a session process
/// outlives its listener (found in /proc by parent id).
func childProcesses(of parent: Int32) -> [Int32] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    var parentOf: [Int32: Int32] = [:]
    for pid in names.compactMap(Int32.init) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 2, let ppid = Int32(fields[1]) { parentOf[pid] = ppid }
    }
    var found: [Int32] = []
    var frontier = [parent]
    while let next = frontier.popLast() {
        let children = parentOf.filter { $0.value == next }.map(\.key)
        found += children
        frontier += children
    }
    return found
}

/// SIGKILL to a server and every process under it, without waiting: Foundation was seen not
/// to notice these daemons' exits, so a wait for it could hang; the kernel closes their sockets
/// at once all the same.
func killTree(_ pid: Int32) {
    let children = childProcesses(of: pid)
    kill(pid, SIGKILL)
    for child in children { kill(child, SIGKILL) }
}

/// Every regular file below `root`, relative to it, hidden ones included, sorted.
func regularFiles(under root: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
    var found: [String] = []
    while let url = enumerator?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            found.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
        }
    }
    return found.sorted()
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
func waitForListener(port: Int, process: Subprocess, timeout: TimeInterval) -> Bool {
    Subprocess.waitUntil(timeout: timeout) {
        guard process.isRunning else { return true }
        return acceptsConnections(port: port)
    } && process.isRunning
}

/// Whether a TCP connect to 127.0.0.1:`port` succeeds (the connection is closed at once).
func acceptsConnections(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// vsftpd (Debian) on a loopback port of its own, anonymous uploads into a fresh folder, with
/// explicit TLS on request (a self-signed certificate made here, for the config to trust).
public final class VsftpdProcess {
    public private(set) var process: Subprocess
    public let directory: URL
    /// What FTP clients see as `/`; uploads go below `upload/`, which anonymous may write.
    public let root: URL
    public let port: Int
    /// The PEM certificate the server presents with TLS on.
    public let certificate: URL?
    private let configFile: URL

    public init(tls: Bool = false) throws {
        guard let vsftpd = ["/usr/sbin/vsftpd"].first(where: FileManager.default.isExecutableFile(atPath:)).map(URL.init(fileURLWithPath:))
        else {
            throw FileServerError.missing("vsftpd")
        }
        directory = try TestPaths.makeTemporaryDirectory("vsftpd")
        root = directory.appendingPathComponent("root")
        let upload = root.appendingPathComponent("upload")
        try FileManager.default.createDirectory(at: upload, withIntermediateDirectories: true)
        chmod(upload.path, 0o777)
        guard let port = ClosedPort.make(), let low = ClosedPort.make() else { throw FileServerError.didNotStart("no free port") }
        self.port = port
        var lines = [
            "listen=YES", "listen_ipv6=NO", "listen_address=127.0.0.1", "listen_port=\(port)", "background=NO",
            "anonymous_enable=YES", "no_anon_password=YES", "anon_root=\(root.path)", "write_enable=YES",
            "anon_upload_enable=YES", "anon_mkdir_write_enable=YES", "anon_other_write_enable=YES", "anon_umask=022",
            "allow_writeable_chroot=YES", "local_enable=NO", "pasv_enable=YES", "pasv_address=127.0.0.1",
            "pasv_min_port=\(low)", "pasv_max_port=\(low + 20)", "seccomp_sandbox=NO", "xferlog_enable=NO",
        ]
        if tls {
            let key = directory.appendingPathComponent("key.pem")
            let cert = directory.appendingPathComponent("cert.pem")
            guard let openssl = Subprocess.which("openssl") else { throw FileServerError.missing("openssl") }
            let made = try Subprocess.run(
                openssl,
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", cert.path,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                ])
            guard made.status == 0 else { throw FileServerError.didNotStart("openssl: \(made.stderr)") }
            certificate = cert
            lines += [
                "ssl_enable=YES", "allow_anon_ssl=YES", "force_anon_logins_ssl=YES", "force_anon_data_ssl=YES",
                "rsa_cert_file=\(cert.path)", "rsa_private_key_file=\(key.path)", "require_ssl_reuse=NO",
            ]
        } else {
            certificate = nil
        }
        configFile = directory.appendingPathComponent("vsftpd.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: configFile, atomically: true, encoding: .utf8)
        process = try Self.start(vsftpd, configFile, port: port)
    }

    private static func start(_ vsftpd: URL, _ config: URL, port: Int) throws -> Subprocess {
        let process = try Subprocess(vsftpd, [config.path])
        guard waitForListener(port: port, process: process, timeout: 20) else {
            process.stop(signal: SIGKILL, timeout: 5)
            throw FileServerError.didNotStart("vsftpd: \(process.stderr) \(process.stdout)")
        }
        return process
    }

    /// The server and every session it runs die at once (a crash or a power cut), then it comes back.
    public func restart() throws {
        kill()
        process = try Self.start(URL(fileURLWithPath: "/usr/sbin/vsftpd"), configFile, port: port)
    }

    public func kill() {
        killTree(process.pid)
    }

    deinit { stop() }

    public func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every file under `upload/`, relative to the root, hidden ones included.
    public func files() -> [String] {
        regularFiles(under: root)
    }
}

/// OpenSSH's sshd (Debian) on a loopback port of its own, for SFTP: a fresh host key, one
/// authorized user key (for the user running the tests), no passwords.
public final class SSHDProcess {
    public let process: Subprocess
    public let directory: URL
    public let port: Int
    /// The client's private key, and a known_hosts file that lists this server.
    public let userKey: URL
    public let knownHosts: URL
    public let hostPublicKey: String
    /// `SHA256:…` of the host key, as `ssh-keygen -l` prints it.
    public let hostFingerprint: String
    /// Where uploads may go (an absolute path).
    public let uploads: URL

    public init() throws {
        guard let sshd = ["/usr/sbin/sshd"].first(where: FileManager.default.isExecutableFile(atPath:)).map(URL.init(fileURLWithPath:)),
            let keygen = Subprocess.which("ssh-keygen")
        else { throw FileServerError.missing("sshd and ssh-keygen (openssh-server)") }
        directory = try TestPaths.makeTemporaryDirectory("sshd")
        uploads = directory.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let hostKey = directory.appendingPathComponent("host_key")
        userKey = directory.appendingPathComponent("user_key")
        for key in [hostKey, userKey] {
            let made = try Subprocess.run(keygen, ["-q", "-t", "ed25519", "-N", "", "-f", key.path])
            guard made.status == 0 else { throw FileServerError.didNotStart("ssh-keygen: \(made.stderr)") }
        }
        // Read before sshd runs: a child started while it runs was seen to stay unreaped here.
        let listed = try Subprocess.run(keygen, ["-l", "-E", "sha256", "-f", hostKey.appendingPathExtension("pub").path])
        hostFingerprint = listed.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        hostPublicKey = try String(contentsOf: hostKey.appendingPathExtension("pub"), encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try FileManager.default.copyItem(at: userKey.appendingPathExtension("pub"), to: directory.appendingPathComponent("authorized_keys"))
        guard let port = ClosedPort.make() else { throw FileServerError.didNotStart("no free port") }
        self.port = port
        knownHosts = directory.appendingPathComponent("known_hosts")
        try "[127.0.0.1]:\(port) \(hostPublicKey)\n".write(to: knownHosts, atomically: true, encoding: .utf8)
        // sshd's privilege separation folder; a fresh machine that never ran sshd has none.
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("sshd_config")
        try """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(hostKey.path)
        PidFile \(directory.appendingPathComponent("sshd.pid").path)
        AuthorizedKeysFile \(directory.appendingPathComponent("authorized_keys").path)
        PermitRootLogin prohibit-password
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        UsePAM no
        StrictModes no
        Subsystem sftp internal-sftp

        """.write(to: config, atomically: true, encoding: .utf8)
        process = try Subprocess(sshd, ["-D", "-e", "-f", config.path])
        guard waitForListener(port: port, process: process, timeout: 20) else {
            process.stop(signal: SIGKILL, timeout: 5)
            throw FileServerError.didNotStart("sshd: \(process.stderr)")
        }
    }

    /// The user the tests run as, whom the server lets in with `userKey`.
    public static var user: String { ProcessInfo.processInfo.environment["USER"] ?? NSUserName() }

    deinit { stop() }

    public func stop() {
        killTree(process.pid)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Apache httpd (Debian's apache2-bin) with mod_dav on a loopback port of its own, started here
/// (never as a service): a WebDAV share at `/` that needs basic auth as `user` / `password`.
public final class ApacheDAVProcess {
    public let process: Subprocess
    public let directory: URL
    /// What the share serves; files written there belong to `nobody` (Apache will not serve as root).
    public let root: URL
    public let port: Int
    public let user = "photo"
    public let password = "dav-secret-\(UUID().uuidString.prefix(6))"

    public init() throws {
        let apache = URL(fileURLWithPath: "/usr/sbin/apache2")
        let modules = "/usr/lib/apache2/modules"
        guard FileManager.default.isExecutableFile(atPath: apache.path),
            FileManager.default.fileExists(atPath: "\(modules)/mod_dav_fs.so")
        else {
            throw FileServerError.missing("Apache httpd with mod_dav (apache2-bin)")
        }
        guard let openssl = Subprocess.which("openssl") else { throw FileServerError.missing("openssl") }
        directory = try TestPaths.makeTemporaryDirectory("apache-dav")
        root = directory.appendingPathComponent("root")
        let locks = directory.appendingPathComponent("locks")
        for folder in [root, locks] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o777)
        }
        chmod(directory.path, 0o755)
        let hashed = try Subprocess.run(openssl, ["passwd", "-apr1", password])
        guard hashed.status == 0 else { throw FileServerError.didNotStart("openssl passwd: \(hashed.stderr)") }
        try "\(user):\(hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))\n"
            .write(to: directory.appendingPathComponent("htpasswd"), atomically: true, encoding: .utf8)
        guard let port = ClosedPort.make() else { throw FileServerError.didNotStart("no free port") }
        self.port = port
        let runAs = getuid() == 0 ? ("nobody", "nogroup") : (NSUserName(), String(cString: getgrgid(getgid()).pointee.gr_name))
        let d = directory.path
        let config = directory.appendingPathComponent("httpd.conf")
        try """
        ServerRoot \(d)
        ServerName 127.0.0.1
        Listen 127.0.0.1:\(port)
        PidFile \(d)/httpd.pid
        DefaultRuntimeDir \(d)
        ErrorLog \(d)/error.log
        LoadModule mpm_event_module \(modules)/mod_mpm_event.so
        LoadModule authz_core_module \(modules)/mod_authz_core.so
        LoadModule authn_core_module \(modules)/mod_authn_core.so
        LoadModule authn_file_module \(modules)/mod_authn_file.so
        LoadModule auth_basic_module \(modules)/mod_auth_basic.so
        LoadModule authz_user_module \(modules)/mod_authz_user.so
        LoadModule dav_module \(modules)/mod_dav.so
        LoadModule dav_fs_module \(modules)/mod_dav_fs.so
        User \(runAs.0)
        Group \(runAs.1)
        DAVLockDB \(locks.path)/davlock
        DocumentRoot \(root.path)
        <Directory \(root.path)>
          Dav On
          AllowOverride None
          AuthType Basic
          AuthName "relay test"
          AuthUserFile \(d)/htpasswd
          Require valid-user
        </Directory>

        """.write(to: config, atomically: true, encoding: .utf8)
        process = try Subprocess(apache, ["-X", "-f", config.path])
        guard waitForListener(port: port, process: process, timeout: 20) else {
            process.stop(signal: SIGKILL, timeout: 5)
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            throw FileServerError.didNotStart("apache2: \(process.stderr) \(log)")
        }
    }

    deinit { stop() }

    public func stop() {
        killTree(process.pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every file under the share's root, relative to it, hidden ones included.
    public func files() -> [String] {
        regularFiles(under: root)
    }
}
