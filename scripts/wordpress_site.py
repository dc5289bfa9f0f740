#!/usr/bin/env python3
"""A throwaway WordPress on loopback, for tests of relay's WordPress destination (issue 51).

    python3 scripts/wordpress_site.py [--port 0] [--upload-max 1M] [--post-max 8M] [--max-body BYTES]
                                      [--permalinks pretty|plain] [--folder blog] [--workers 4]
                                      [--no-image-sizes] [--keep] [--dir DIR]

Built from Debian's own packages and touching no system configuration: `wordpress` (the files
in /usr/share/wordpress, copied into a fresh folder with a wp-config.php of their own, so that
Debian's /etc/wordpress/config-HOST.php is never read), `mariadb-server-core` (a private mariadbd
on a Unix socket in that folder, no TCP port, its data in that folder) and `php-mysql` with
PHP's built-in server (`php -S 127.0.0.1:PORT`, with a router that does what WordPress's
.htaccess does for Apache). The site is installed without a browser (wp_install() from a PHP
script), with one administrator, one Application Password and one published post to attach
photos to. Once the site answers, one JSON line is printed:

    {"url": "http://127.0.0.1:PORT/", "rest_root": "http://127.0.0.1:PORT/wp-json/",
     "user": "relay", "user_id": 1, "app_password": "abcd efgh ...", "post_id": 4,
     "pid": ..., "php_pid": ..., "mariadb_pid": ..., "dir": ..., "uploads": ".../wp-content/uploads",
     "upload_max_filesize": "1M", "post_max_size": "8M", "version": "6.1.9", "seconds": 3.1}

`rest_root` is read from the site's own `Link: <...>; rel="https://api.w.org/"` header, as a
client finds it (`.../index.php?rest_route=/` with plain permalinks). The site runs until this
process gets SIGTERM, SIGINT or SIGHUP, or its parent process ends (looked at once a second);
then PHP and MariaDB are ended and the folder is removed (--keep leaves it). If this process is
killed outright, the kernel kills PHP's master and MariaDB (PR_SET_PDEATHSIG) and a watchdog
shell kills the rest, PHP's workers included (PHP 8.2's workers outlive their master), and
removes the folder: see Site.start_watchdog.

Facts from WordPress's source (6.1.9 as Debian ships it, /usr/share/wordpress) and from trying
it here with curl, for relay's WordPress destination:
- Application Passwords over plain http: wp_is_application_passwords_supported() is
  `is_ssl() || 'local' === wp_get_environment_type()` (wp-includes/user.php:4901), filtered by
  wp_is_application_passwords_available (user.php:4915); wp_get_environment_type() reads the
  WP_ENVIRONMENT_TYPE constant (wp-includes/load.php:230). So wp-config.php here defines it as
  'local': no filter, no plugin. The password is made with
  WP_Application_Passwords::create_new_application_password($user_id, array('name' => ...))
  (wp-includes/class-wp-application-passwords.php:74; 24 characters, PW_LENGTH at line 42) and
  printed chunked by chunk_password() (line 409); WordPress strips anything non-alphanumeric
  before checking it (user.php, wp_authenticate_application_password, line 316 on).
- A wrong password or an unknown user is NOT answered `incorrect_password`: WP->init() determines
  the user before REST_REQUEST is defined (wp-includes/class-wp.php:650), so the Application
  Password is only tried again from rest_cookie_check_errors (rest-api.php:1036, priority 100),
  after rest_application_password_check_errors (rest-api.php:1154, priority 90) has looked. The
  answer is the endpoint's own 401: POST /wp/v2/media gives {"code":"rest_cannot_create",
  "message":"Sorry, you are not allowed to create posts as this user.","data":{"status":401}};
  GET /wp/v2/users/me gives "rest_not_logged_in" (401). Seen with a mu-plugin's backtrace.
- Raw-body uploads (the bytes as the body, `Content-Disposition: attachment; filename="…"`,
  WP_REST_Attachments_Controller::upload_from_data, rest-api/endpoints/
  class-wp-rest-attachments-controller.php:975) are NOT limited by upload_max_filesize nor by
  post_max_size on PHP 8.2: PHP only warns ("PHP Request Startup: POST Content-Length of N bytes
  exceeds the limit of M bytes") and php://input still holds the whole body; seen with php -S
  and with Apache's mod_php (libphp8.2) alike. A 4 MB photo was stored with upload_max_filesize
  1M and post_max_size 2M. (With display_errors on, that warning would come before the JSON.)
  Only multipart uploads ($_FILES, upload_from_file, line 1186) are limited: over
  upload_max_filesize, 500 {"code":"rest_upload_unknown_error","message":"The uploaded file
  exceeds the upload_max_filesize directive in php.ini."}; over post_max_size PHP drops the body,
  and the answer is 400 {"code":"rest_upload_no_content_disposition","message":"No
  Content-Disposition supplied."}. wp_max_upload_size() (wp-includes/media.php:3839) is not in
  core 6.1's REST API (only the block editor's settings, block-editor.php:231).
- Content-MD5 on an upload is checked: a mismatch is 412 rest_upload_hash_mismatch (line 1017).
- `slug` and `post` can be given in the query string of POST /wp/v2/media; the slug is kept
  as given (relay-abc123), and `GET /wp/v2/media?slug=…` finds it ([] when none). A second upload
  with the same slug is NOT refused: wp_unique_post_slug (wp-includes/post.php:4985) makes it
  `…-2`. So the slug is for the probe before a re-send, not a guard by itself.
- Through scripts/cut_answer_proxy.py (the 201 cut): the attachment was stored and attached
  (`post` = the post's id), and the slug look-up found it afterwards.
- Uploading to a post that does not exist (`?post=9999`) is 403 {"code":"rest_cannot_edit",
  "message":"Sorry, you are not allowed to upload media to this post."} (line 133), not 404;
  GET /wp/v2/posts/9999 is 404 rest_post_invalid_id: ask for the post first to say "no such post".
- Posts have no ETag and no If-Match (class-wp-rest-posts-controller.php, class-wp-rest-server.php):
  two writers of one post's content overwrite each other; relay must keep one writer per post.
- The REST root is `…/wp-json/` with pretty permalinks and `…/index.php?rest_route=/` with plain
  ones (get_rest_url, rest-api.php:449, lines 468-474 add index.php), in the site's
  `Link: <…>; rel="https://api.w.org/"` header (rest_output_link_header, rest-api.php:1001).
  Routes then go after `rest_route=/` and further queries join with `&`.
- Timings here (2 cores, tmpfs): start-up 1.9-2.9 s (4.1 s with the folder on a disk);
  a 640x480 JPEG uploaded in 0.04-0.11 s; 20 of them, 4 at once, 1.6 s; a 24 MP JPEG 4.5 s with
  WordPress's smaller copies, 0.08 s without (--no-image-sizes); SIGTERM to gone 0.13 s.

"""

import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

WORDPRESS = "/usr/share/wordpress"


def die_with_parent():
    """In a child before exec: SIGKILL once this script is gone (Linux's PR_SET_PDEATHSIG), and
    a process group of its own, so that the child's own children (PHP's workers) are ended with
    it."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass
    os.setpgrp()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def find(*names):
    for name in names:
        path = shutil.which(name) or next((p for p in ("/usr/sbin/" + name, "/usr/bin/" + name) if os.access(p, os.X_OK)), None)
        if path:
            return path
    return None


class Site:
    def __init__(self, options):
        self.options = options
        self.children = []
        self.lock = threading.Lock()
        self.stopped = False
        base = options.dir or tempfile.mkdtemp(prefix="relay-wp-")
        os.makedirs(base, exist_ok=True)
        self.dir = base
        self.db_dir = os.path.join(base, "db")
        self.socket = os.path.join(base, "db.sock")
        self.www = os.path.join(base, "www")
        self.folder = options.folder.strip("/")
        self.site_root = os.path.join(self.www, self.folder) if self.folder else self.www
        self.log = open(os.path.join(base, "site.log"), "ab")

    # MariaDB ---------------------------------------------------------------------------------

    def start_mariadb(self):
        mariadbd = find("mariadbd", "mysqld")
        install_db = find("mariadb-install-db", "mysql_install_db")
        if not mariadbd or not install_db:
            raise SystemExit("mariadbd or mariadb-install-db is missing: scripts/install-deps.sh test installs mariadb-server")
        root = ["--user=root"] if os.geteuid() == 0 else []
        # A datadir of its own, its system tables made by MariaDB's own tool; no my.cnf is read
        # (--no-defaults), so /etc/mysql is neither read nor changed.
        os.makedirs(self.db_dir, exist_ok=True)
        made = subprocess.run(
            [install_db, "--no-defaults", "--datadir=" + self.db_dir, "--auth-root-authentication-method=normal",
             # Its bootstrap server's temporary tables in this site's folder, not in TMPDIR: a test
             # run shares one TMPDIR, and a bootstrap there once failed "Could not remove
             # temporary table … error: 2" while other tests ran.
             "--tmpdir=" + self.dir, "--skip-test-db", "--skip-name-resolve"] + root +
            ["--innodb-flush-log-at-trx-commit=0", "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        if made.returncode != 0:
            raise SystemExit("mariadb-install-db failed: " + made.stdout.decode(errors="replace")[-3000:])
        # No TCP port at all: WordPress reaches it by the socket (DB_HOST 'localhost:/path').
        # Durability traded for speed: the database is thrown away with the folder.
        self.mariadb = self.spawn(
            [mariadbd, "--no-defaults", "--datadir=" + self.db_dir, "--socket=" + self.socket, "--skip-networking",
             "--pid-file=" + os.path.join(self.dir, "mariadb.pid"), "--log-error=" + os.path.join(self.dir, "mariadb.err"),
             "--tmpdir=" + self.dir, "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
             "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--skip-name-resolve",
             "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci"] + root)

        def answers():
            if self.mariadb.poll() is not None:
                return True
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(self.socket)
                    return True
            except OSError:
                return False
        if not wait_for(answers, 60) or self.mariadb.poll() is not None:
            raise SystemExit("mariadbd did not start: " + self.tail("mariadb.err"))

    # WordPress files -------------------------------------------------------------------------

    def lay_out_files(self, port):
        """A copy of Debian's WordPress (a copy, not symlinks: PHP resolves a symlinked file's
        __FILE__ to /usr/share/wordpress, and wp-load.php would then find Debian's wp-config.php)
        with wp-content of its own: uploads here, themes and plugins from the package."""
        if not os.path.isfile(os.path.join(WORDPRESS, "wp-settings.php")):
            raise SystemExit(WORDPRESS + " is missing: scripts/install-deps.sh test installs wordpress")
        if self.folder:
            os.makedirs(self.www, exist_ok=True)
        shutil.copytree(WORDPRESS, self.site_root, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if folder == WORDPRESS and n in ("wp-config.php", "wp-content")])
        content = os.path.join(self.site_root, "wp-content")
        os.makedirs(os.path.join(content, "uploads"))
        os.makedirs(os.path.join(content, "mu-plugins"))
        for name in ("themes", "plugins", "languages"):
            for source in (os.path.join(WORDPRESS, "wp-content", name), os.path.join("/var/lib/wordpress/wp-content", name)):
                if os.path.isdir(source):
                    os.symlink(source, os.path.join(content, name))
                    break
        if not self.options.image_sizes:
            with open(os.path.join(content, "mu-plugins", "relay-no-image-sizes.php"), "w") as f:
                f.write("<?php\n// --no-image-sizes: uploads are stored as sent, without WordPress's smaller copies\n"
                        "// (wp_generate_attachment_metadata's intermediate sizes and its -scaled copy of big images).\n"
                        "add_filter('intermediate_image_sizes_advanced', '__return_empty_array');\n"
                        "add_filter('big_image_size_threshold', '__return_false');\n")
        self.write_config(port)

    def url(self, port):
        return "http://127.0.0.1:%d%s" % (port, "/" + self.folder if self.folder else "")

    def write_config(self, port):
        salts = "\n".join("define('%s', '%s');" % (name, os.urandom(24).hex()) for name in (
            "AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT",
            "LOGGED_IN_SALT", "NONCE_SALT"))
        config = """<?php
// Written by relay's scripts/wordpress_site.py for a throwaway test site.
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:%(socket)s');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
%(salts)s
$table_prefix = 'wp_';
// Application Passwords over plain http: wp_is_application_passwords_supported() is
// `is_ssl() || 'local' === wp_get_environment_type()` (wp-includes/user.php).
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HOME', '%(url)s');
define('WP_SITEURL', '%(url)s');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_CONTENT_URL', '%(url)s/wp-content');
// Nothing leaves the machine: no update checks, no cron requests to itself.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);
if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
""" % {"socket": self.socket, "salts": salts, "url": self.url(port)}
        with open(os.path.join(self.site_root, "wp-config.php"), "w") as f:
            f.write(config)

    # Installing ------------------------------------------------------------------------------

    INSTALL = r"""<?php
// Creates the database, installs WordPress, makes an Application Password and a post; prints JSON.
$options = json_decode($argv[1], true);
$db = new mysqli('localhost', 'root', '', '', 0, $options['socket']);
$db->query('CREATE DATABASE IF NOT EXISTS wordpress CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
$db->close();
// As a request to the site would: wp_install() and the options it sets read them.
$parts = parse_url($options['url']);
$_SERVER['HTTP_HOST'] = $parts['host'] . ':' . $parts['port'];
$_SERVER['SERVER_NAME'] = $parts['host'];
$_SERVER['SERVER_PORT'] = $parts['port'];
$_SERVER['REQUEST_URI'] = ($parts['path'] ?? '') . '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
define('WP_INSTALLING', true);
// No mail: wp_install() sends the administrator a "new site" mail (pluggable, so defined first).
function wp_mail() { return true; }
require $options['root'] . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
$installed = wp_install('relay test gallery', $options['user'], $options['user'] . '@example.invalid', true, '', $options['password']);
$user_id = $installed['user_id'];
if ($options['permalinks'] === 'pretty') {
    global $wp_rewrite;
    $wp_rewrite->set_permalink_structure('/%postname%/');
    flush_rewrite_rules(false);
}
$created = WP_Application_Passwords::create_new_application_password($user_id, array('name' => 'relay'));
if (is_wp_error($created)) { fwrite(STDERR, $created->get_error_message()); exit(1); }
$post_id = wp_insert_post(array('post_title' => 'Live gallery', 'post_status' => 'publish', 'post_type' => 'post',
    'post_author' => $user_id, 'post_content' => ''), true);
if (is_wp_error($post_id)) { fwrite(STDERR, $post_id->get_error_message()); exit(1); }
echo json_encode(array('user_id' => $user_id, 'app_password' => WP_Application_Passwords::chunk_password($created[0]),
    'post_id' => $post_id, 'version' => $GLOBALS['wp_version'])), "\n";
"""

    def install(self, port):
        script = os.path.join(self.dir, "install.php")
        with open(script, "w") as f:
            f.write(self.INSTALL)
        self.admin_password = os.urandom(12).hex()
        request = {"socket": self.socket, "url": self.url(port), "root": self.site_root, "user": self.options.user,
                   "password": self.admin_password, "permalinks": self.options.permalinks}
        done = subprocess.run(["php", script, json.dumps(request)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=self.site_root, preexec_fn=die_with_parent)
        lines = [line for line in done.stdout.decode(errors="replace").splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise SystemExit("installing WordPress failed: " + (done.stdout + done.stderr).decode(errors="replace")[-3000:])
        return json.loads(lines[-1])

    # PHP's server ----------------------------------------------------------------------------

    ROUTER = r"""<?php
// What WordPress's .htaccess has Apache do: a file that exists is served (PHP files run), anything
// else is handed to the site's index.php with the URI as it came (pretty permalinks, /wp-json/).
// --max-body: what a web server's own limit on a request (nginx's client_max_body_size, Apache's
// LimitRequestBody) answers before PHP or WordPress sees the request: 413 with a page of its own.
$limit = %(max_body)d;
if ($limit > 0 && (int)($_SERVER['CONTENT_LENGTH'] ?? 0) > $limit) {
    http_response_code(413);
    header('Content-Type: text/html');
    echo "<html><head><title>413 Request Entity Too Large</title></head><body><h1>413 Request Entity Too Large</h1></body></html>\n";
    return true;
}
$root = $_SERVER['DOCUMENT_ROOT'];
$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');
if (strpos($path, '..') === false && (is_file($root . $path) || is_file(rtrim($root . $path, '/') . '/index.php'))) {
    return false;
}
$site = %(prefix)s;
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = $site . '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . $site . '/index.php';
unset($_SERVER['PATH_INFO'], $_SERVER['ORIG_PATH_INFO']);
chdir($root . $site);
require $root . $site . '/index.php';
"""

    def start_php(self, port):
        router = os.path.join(self.dir, "router.php")
        with open(router, "w") as f:
            f.write(self.ROUTER % {"prefix": json.dumps("/" + self.folder if self.folder else ""),
                                   "max_body": self.options.max_body})
        environment = dict(os.environ)
        if self.options.workers > 1:
            # PHP's built-in server answers one request at a time unless it forks workers.
            environment["PHP_CLI_SERVER_WORKERS"] = str(self.options.workers)
        arguments = ["php", "-d", "upload_max_filesize=" + self.options.upload_max, "-d",
                     "post_max_size=" + self.options.post_max, "-d", "memory_limit=256M", "-d", "max_execution_time=120",
                     "-d", "display_errors=stderr", "-d", "log_errors=0",
                     "-S", "127.0.0.1:%d" % port, "-t", self.www, router]
        self.php = self.spawn(arguments, env=environment, cwd=self.www)

        def listening():
            if self.php.poll() is not None:
                return True
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                return False
        return wait_for(listening, 20) and self.php.poll() is None

    def rest_root(self, port):
        """The REST API's root as a client finds it: the Link header with rel="https://api.w.org/"
        on the site's home page (WordPress's rest_output_link_header, wp-includes/rest-api.php)."""
        request = urllib.request.Request(self.url(port) + "/", method="HEAD")
        with urllib.request.urlopen(request, timeout=30) as answer:
            links = answer.headers.get_all("Link") or []
        for link in links:
            for match in re.finditer(r'<([^>]+)>\s*;\s*rel="https://api\.w\.org/"', link):
                return match.group(1)
        raise SystemExit("no rel=\"https://api.w.org/\" Link header on " + self.url(port) + "/: " + repr(links))

    # Processes -------------------------------------------------------------------------------

    def start_watchdog(self):
        """A shell in a session of its own that holds the reading end of a pipe this script alone
        writes to: each child's process group is written to it, and when the script is gone, however
        it ended (SIGKILL too), the shell reads the end of the pipe, kills those groups and removes
        the folder. PR_SET_PDEATHSIG alone is not enough: PHP 8.2's server workers are forked by PHP
        after exec, which clears the setting, and outlive a killed master."""
        reading, self.watch_pipe = os.pipe()
        script = 'while read g; do gs="$gs $g"; done; for g in $gs; do kill -9 -$g 2>/dev/null; done; %s' % (
            "" if self.options.keep else 'rm -rf -- "$1"')
        self.watchdog = subprocess.Popen(["sh", "-c", script, "watchdog", self.dir], stdin=reading,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(reading)

    def spawn(self, arguments, **extra):
        child = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                 preexec_fn=die_with_parent, **extra)
        self.children.append(child)
        os.write(self.watch_pipe, b"%d\n" % child.pid)
        return child

    def tail(self, name):
        try:
            with open(os.path.join(self.dir, name), errors="replace") as f:
                return f.read()[-3000:]
        except OSError as error:
            return str(error)

    def stop(self):
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
        # PHP's master is asked first, so that it reaps its workers; then whatever is left of each
        # group is killed (MariaDB outright: its data is thrown away).
        if getattr(self, "php", None) is not None and self.php.poll() is None:
            self.php.terminate()
            try:
                self.php.wait(2)
            except subprocess.TimeoutExpired:
                pass
        for child in reversed(self.children):
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                pass
            child.wait()
        if not self.options.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        # Nothing left for the watchdog to do: it reads the end of its pipe and exits.
        os.close(self.watch_pipe)
        self.watchdog.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free loopback port")
    parser.add_argument("--dir", default=None, help="the folder to build the site in (default: a new temporary one)")
    parser.add_argument("--user", default="relay", help="the administrator's login")
    parser.add_argument("--upload-max", default="64M", help="PHP's upload_max_filesize (e.g. 1M)")
    parser.add_argument("--post-max", default=None, help="PHP's post_max_size (default: --upload-max plus 1M)")
    parser.add_argument("--permalinks", choices=("pretty", "plain"), default="pretty",
                        help="pretty: /%%postname%%/ and /wp-json/; plain: ?p=ID and ?rest_route=/")
    parser.add_argument("--folder", default="", help="serve the site from this folder (http://127.0.0.1:PORT/FOLDER/)")
    parser.add_argument("--max-body", type=int, default=0,
                        help="answer a request body over this many bytes with 413, as a web server's limit does (0: none)")
    parser.add_argument("--workers", type=int, default=4, help="PHP server workers (requests answered at once)")
    parser.add_argument("--no-image-sizes", dest="image_sizes", action="store_false",
                        help="no smaller copies of each upload (a 24 MP JPEG takes 4.5 s with them)")
    parser.add_argument("--keep", action="store_true", help="leave the folder when stopped")
    options = parser.parse_args()
    if options.post_max is None:
        match = re.fullmatch(r"(\d+)([KMG]?)", options.upload_max.upper())
        options.post_max = "%d%s" % (int(match.group(1)) + (1 if match.group(2) == "M" else 0), match.group(2)) if match else "0"
    started = time.time()
    site = Site(options)
    site.start_watchdog()

    def on_signal(number, frame):
        site.stop()
        os._exit(0)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, on_signal)
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(1)
        site.stop()
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()

    try:
        port = options.port or free_port()
        # Files and database at once: the copy is disk work, MariaDB's start mostly waiting.
        failed = []

        def lay_out():
            try:
                site.lay_out_files(port)
            except BaseException as error:
                failed.append(error)
        copier = threading.Thread(target=lay_out)
        copier.start()
        site.start_mariadb()
        copier.join()
        if failed:
            raise failed[0]
        installed = site.install(port)
        # A port found free may be taken before PHP binds it: then another, and the config anew.
        for attempt in range(5):
            if site.start_php(port):
                break
            if options.port or attempt == 4:
                raise SystemExit("php -S did not start: " + site.tail("site.log"))
            site.children.remove(site.php)
            port = free_port()
            site.write_config(port)
        rest_root = site.rest_root(port)
    except BaseException:
        site.stop()
        raise
    print(json.dumps({
        "url": site.url(port) + "/", "rest_root": rest_root, "user": options.user, "user_id": installed["user_id"],
        "app_password": installed["app_password"], "admin_password": site.admin_password, "post_id": installed["post_id"],
        "pid": os.getpid(), "php_pid": site.php.pid, "mariadb_pid": site.mariadb.pid, "dir": site.dir,
        "uploads": os.path.join(site.site_root, "wp-content", "uploads"), "upload_max_filesize": options.upload_max,
        "post_max_size": options.post_max, "version": installed["version"], "seconds": round(time.time() - started, 2),
    }), flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
