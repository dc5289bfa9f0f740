/// The status page: one self-contained document (no fetches but its own data), laid out for a
/// phone held at a venue: large dark type on light, one column from 320 px up. It asks for
/// `status.json` every second and redraws; when that fails it says so at the top, so a stale
/// page is never taken for a live one. The token it was opened with goes on every request.
/// Text from the run is set with `textContent`, never parsed as HTML.
enum StatusPageHTML {
    static let document = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>relay</title>
        <style>
          :root { color-scheme: light; }
          * { box-sizing: border-box; }
          body { margin: 0; font: 18px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111; background: #f4f4f1; }
          header { position: sticky; top: 0; background: #111; color: #fff; padding: 10px 14px; display: flex;
                   justify-content: space-between; align-items: baseline; gap: 8px; }
          header h1 { font-size: 22px; margin: 0; }
          header small { font-size: 15px; color: #ddd; }
          #lost { display: none; background: #b00020; color: #fff; padding: 12px 14px; font-weight: 700; font-size: 20px; }
          body.lost #lost { display: block; }
          #held-warning { background: #8a4b00; color: #fff; padding: 12px 14px; font-weight: 700; font-size: 18px; }
          main { padding: 10px; max-width: 720px; margin: 0 auto; }
          section { background: #fff; border-radius: 10px; padding: 12px 14px; margin-bottom: 10px; box-shadow: 0 1px 2px rgba(0,0,0,.12); }
          h2 { font-size: 15px; text-transform: uppercase; letter-spacing: .04em; color: #555; margin: 0 0 8px; }
          .counts { display: grid; grid-template-columns: repeat(3, 1fr); gap: 6px; text-align: center; }
          .count b { display: block; font-size: 30px; line-height: 1.1; white-space: nowrap; }
          .count span { font-size: 14px; color: #444; }
          .item { border-top: 1px solid #e4e4e0; padding: 8px 0; }
          .item:first-of-type { border-top: 0; padding-top: 0; }
          .title { font-size: 20px; font-weight: 700; display: flex; justify-content: space-between; gap: 8px; flex-wrap: wrap; }
          .facts { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 17px; }
          .ok { color: #0a6b2a; }
          .bad { color: #b00020; font-weight: 700; }
          .warn { color: #8a4b00; font-weight: 700; }
          .note { font-size: 15px; color: #444; }
          .uploads { display: grid; grid-template-columns: repeat(auto-fill, minmax(96px, 1fr)); gap: 8px; }
          .upload { font-size: 13px; color: #333; overflow-wrap: anywhere; }
          .upload img, .upload .placeholder { width: 100%; aspect-ratio: 3 / 2; object-fit: cover; border-radius: 6px; background: #d8d8d2; display: block; }
          progress { width: 100%; height: 14px; }
        </style>
        </head>
        <body>
        <header><h1>relay</h1><small id="updated">waiting for relay…</small></header>
        <div id="lost" role="alert">Connection to relay lost: the figures below are not live.</div>
        <div id="held-warning" role="alert" hidden></div>
        <main>
          <section><h2>Photos</h2>
            <div class="counts">
              <div class="count"><b id="taken">–</b><span>taken</span></div>
              <div class="count"><b id="delivered">–</b><span>delivered</span></div>
              <div class="count"><b id="queued">–</b><span>waiting</span></div>
              <div class="count"><b id="uploading">–</b><span>uploading</span></div>
              <div class="count"><b id="failed">–</b><span>failed</span></div>
              <div class="count"><b id="speed">–</b><span>upload speed</span></div>
              <div class="count"><b id="already-taken">–</b><span>taken before</span></div>
            </div>
          </section>
          <section id="capture-section" hidden><h2>Timed capture</h2><div id="capture"></div></section>
          <section><h2>Cameras</h2><div id="cameras"></div></section>
          <section><h2>Destinations</h2><div id="destinations"></div></section>
          <section><h2>Last uploads</h2><div id="recent" class="uploads"></div></section>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token");
        const withToken = (path) => token ? path + "?token=" + encodeURIComponent(token) : path;
        const $ = (id) => document.getElementById(id);

        function el(tag, className, text, children) {
          const node = document.createElement(tag);
          if (className) node.className = className;
          if (text !== undefined && text !== null) node.textContent = text;
          for (const child of children || []) if (child) node.appendChild(child);
          return node;
        }

        function bytes(n) {
          if (n === undefined || n === null) return null;
          if (n >= 1e9) return (n / 1e9).toFixed(1) + " GB";
          if (n >= 1e6) return (n / 1e6).toFixed(1) + " MB";
          if (n >= 1e3) return (n / 1e3).toFixed(0) + " kB";
          return n + " B";
        }

        function ago(seconds) {
          if (seconds === undefined || seconds === null) return null;
          if (seconds < 60) return Math.round(seconds) + " s ago";
          if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
          return (seconds / 3600).toFixed(1) + " h ago";
        }

        function duration(seconds) {
          if (seconds < 60) return Math.round(seconds) + " s";
          if (seconds < 3600) return Math.round(seconds / 60) + " min";
          return (seconds / 3600).toFixed(1) + " h";
        }

        function renderCamera(camera) {
          const facts = [];
          const state = camera.connected ? el("span", "ok", "connected") : el("span", "bad", camera.model ? "not connected" : "waiting");
          if (camera.batteryPercent !== undefined) {
            facts.push(el("span", camera.batteryPercent <= 20 ? "warn" : "", "battery " + camera.batteryPercent + " %"));
          }
          const card = [];
          if (camera.cardFreeShots !== undefined) card.push(camera.cardFreeShots + " shots");
          if (camera.cardFreeBytes !== undefined) card.push(bytes(camera.cardFreeBytes));
          if (card.length) facts.push(el("span", camera.cardFreeShots !== undefined && camera.cardFreeShots < 100 ? "warn" : "",
                                          "card " + card.join(", ") + " free"));
          facts.push(el("span", "", camera.taken + " taken"));
          if (camera.lastShot) facts.push(el("span", "", "last shot " + camera.lastShot.name + ", " + ago(camera.lastShot.ageSeconds)));
          if (camera.spoolFull) facts.push(el("span", "bad", "spool full: photos wait on the camera"));
          return el("div", "item camera", null, [
            el("div", "title", null, [el("span", "", camera.model || camera.label), state]),
            el("div", "facts", null, facts),
            el("div", "note", !camera.connected && camera.problem ? camera.problem : camera.label),
          ]);
        }

        function renderDestination(destination) {
          if (!destination.inRun) {
            return el("div", "item destination", null, [
              el("div", "title", null, [el("span", "", destination.label), el("span", "warn", "not in this run")]),
              el("div", "facts", null, [el("span", "warn", destination.queued + " waiting")]),
              el("div", "note", "relay run --config " + destination.label + " sends them; relay drop --destination "
                + destination.label + " gives them up"),
            ]);
          }
          const facts = [
            el("span", "", destination.queued + " waiting"),
            el("span", "", destination.inFlight + " in flight"),
            el("span", destination.failed ? "bad" : "", destination.failed + " failed"),
            el("span", "", destination.delivered + " delivered"),
          ];
          if (destination.held) facts.push(el("span", "warn", destination.held + " held for review"));
          if (destination.oldestWaitSeconds !== undefined) facts.push(el("span", "", "oldest waits " + duration(destination.oldestWaitSeconds)));
          return el("div", "item destination", null, [
            el("div", "title", null, [el("span", "", destination.label),
              destination.reachable ? el("span", "ok", "reachable") : el("span", "bad", "unreachable")]),
            el("div", "facts", null, facts),
            destination.problem ? el("div", "note", destination.problem) : el("div", "note", destination.target),
          ]);
        }

        function renderUpload(upload) {
          const picture = upload.thumbnail ? el("img") : el("div", "placeholder");
          if (upload.thumbnail) { picture.src = withToken(upload.thumbnail.replace(/^\//, "")); picture.alt = upload.name; }
          const by = upload.photographer ? "by " + upload.photographer + ", " : "";
          return el("div", "upload", null, [picture, el("div", "", upload.name), el("div", "note", by + ago(upload.ageSeconds))]);
        }

        function renderCapture(capture) {
          const children = [el("div", "title", capture.paused ? "paused: the camera is away" : capture.text)];
          if (capture.planned) {
            const bar = el("progress");
            bar.max = capture.planned;
            bar.value = capture.shot;
            children.push(bar);
          }
          const facts = [el("span", "", capture.captured + " captured of " + capture.shot + " due" + (capture.planned ? " (" + capture.planned + " planned)" : ""))];
          if (capture.missed) facts.push(el("span", "warn", capture.missed + " missed"));
          if (capture.failed) facts.push(el("span", "bad", capture.failed + " failed"));
          if (capture.uploadsPending) facts.push(el("span", "", capture.uploadsPending + " not uploaded yet"));
          children.push(el("div", "facts", null, facts));
          return children;
        }

        function render(status) {
          $("taken").textContent = status.totals.taken;
          $("delivered").textContent = status.totals.delivered;
          $("queued").textContent = status.totals.queued;
          $("uploading").textContent = status.totals.uploading;
          $("failed").textContent = status.totals.failed;
          $("already-taken").textContent = status.totals.alreadyTaken;
          $("speed").textContent = bytes(status.uploadBytesPerSecond) + "/s";
          $("cameras").replaceChildren(...(status.cameras.length ? status.cameras.map(renderCamera) : [el("div", "note", "no camera yet")]));
          $("destinations").replaceChildren(...status.destinations.map(renderDestination));
          $("recent").replaceChildren(...(status.recent.length ? status.recent.map(renderUpload) : [el("div", "note", "none yet")]));
          $("capture-section").hidden = !status.capture;
          if (status.capture) $("capture").replaceChildren(...renderCapture(status.capture));
          const warning = $("held-warning");
          warning.hidden = !(status.spool && status.spool.heldWarning);
          if (status.spool && status.spool.heldWarning) {
            warning.textContent = "Photos held for review fill " + Math.round(status.spool.heldShare * 100)
              + "% of the spool: approve or reject them, or new photos will wait at the camera.";
          }
          const stopping = status.stopping ? " · stopping" : "";
          $("updated").textContent = "updated " + new Date().toLocaleTimeString() + stopping;
        }

        async function poll() {
          try {
            const response = await fetch(withToken("status.json"), { cache: "no-store" });
            if (!response.ok) throw new Error("HTTP " + response.status);
            render(await response.json());
            document.body.classList.remove("lost");
          } catch (error) {
            document.body.classList.add("lost");
          }
          setTimeout(poll, 1000);
        }
        poll();
        </script>
        </body>
        </html>
        """#
}
