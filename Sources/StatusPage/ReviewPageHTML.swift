/// The editor's page (`/review`): one self-contained document (nothing loaded from elsewhere),
/// for a phone beside the photographer or a laptop. The desk's photos newest first as large
/// thumbnails, paged as the editor scrolls, under a filter bar (photographer, camera, stars,
/// selected, state, each with its count; the filter lives in the address). A tap on a photo (Enter
/// on a keyboard) opens the loupe (``ReviewLoupeHTML``); a tap on its corner selects it, and
/// Approve or Reject decides for the selection (or the photo in focus), Undo takes the last
/// decision back. On a keyboard: arrows move, space selects, A approves, R rejects, U undoes. It
/// asks `review.json?since=` about every 0.8 s, so another editor's decision shows within a
/// second. Names and captions are set with `textContent`, never parsed as HTML; the token goes on
/// every request.
enum ReviewPageHTML {
    static let document = head + ReviewLoupeHTML.style + body + ReviewLoupeHTML.markup + script + ReviewLoupeHTML.script + end

    private static let head = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>relay · review</title>
        <style>
          :root { color-scheme: dark; }
          * { box-sizing: border-box; }
          [hidden] { display: none !important; }
          body { margin: 0; font: 17px/1.3 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #eee; background: #151515; }
          header { position: sticky; top: 0; z-index: 2; background: #000; padding: 10px 12px; display: flex; gap: 8px;
                   justify-content: space-between; align-items: baseline; }
          header h1 { font-size: 20px; margin: 0; }
          #count { font-weight: 700; }
          #message { display: none; background: #b00020; color: #fff; padding: 10px 12px; font-weight: 700; }
          #message.shown { display: block; }
          main { padding: 8px 8px 96px; }
          #grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(46vw, 240px), 1fr)); gap: 8px; }
          .photo { position: relative; background: #222; border-radius: 8px; overflow: hidden; outline: none; border: 3px solid transparent; }
          .photo img, .photo .placeholder { width: 100%; aspect-ratio: 3 / 2; object-fit: contain; background: #2a2a2a; display: block;
                                            cursor: zoom-in; }
          .photo .name { font-size: 14px; padding: 4px 6px 0; overflow-wrap: anywhere; }
          .photo .facts, .photo .words { font-size: 13px; color: #aaa; padding: 0 6px 6px; }
          .photo .words { color: #ddd; font-style: italic; }
          .photo.focused { border-color: #6aa8ff; }
          .photo.selected { border-color: #ffd24a; }
          .photo .check { position: absolute; top: 0; right: 0; width: 44px; height: 44px; display: flex; align-items: center;
                          justify-content: center; }
          .photo .check::after { content: ""; width: 26px; height: 26px; border-radius: 50%; border: 2px solid #fff; background: #0006; }
          .photo.selected .check::after { content: "✓"; background: #ffd24a; color: #000; border-color: #ffd24a; text-align: center;
                                          font-weight: 700; line-height: 26px; }
          .photo .state { position: absolute; top: 8px; left: 8px; padding: 2px 8px; border-radius: 10px; font-size: 13px; font-weight: 700; }
          .state.approved { background: #4cc37a; color: #000; }
          .state.rejected { background: #ff6b6b; color: #000; }
          #more { display: block; margin: 12px auto; font-size: 16px; padding: 10px 18px; }
          #filters { padding: 6px 10px; display: flex; flex-wrap: wrap; gap: 6px; }
          #filters a { color: #ddd; background: #333; border-radius: 14px; padding: 4px 10px; text-decoration: none; font-size: 14px; }
          #filters a.on { background: #4cc37a; color: #000; }
          #filters .gap { width: 100%; height: 0; }
          #empty { color: #aaa; text-align: center; padding: 40px 10px; }
          nav { position: fixed; left: 0; right: 0; bottom: 0; background: #000; display: grid; grid-template-columns: 1fr 1fr 1fr;
                gap: 8px; padding: 10px; z-index: 2; }
          nav button, #loupe .decide button { font-size: 19px; font-weight: 700; padding: 14px 6px; border: 0; border-radius: 10px; color: #000; }
          .approve { background: #4cc37a; }
          .reject { background: #ff6b6b; }
          .undo { background: #ccc; }
          button:disabled { opacity: .45; }
        """#

    private static let body = #"""
        </style>
        </head>
        <body>
        <header><h1>Review</h1><span><span id="count">–</span> <small id="updated">connecting…</small></span></header>
        <div id="message" role="alert"></div>
        <div id="filters"></div>
        <main>
          <div id="grid"></div>
          <div id="empty" hidden>Nothing here.</div>
          <button id="more" hidden>Show more</button>
        </main>
        <nav>
          <button id="approve" class="approve" title="A">Approve</button>
          <button id="reject" class="reject" title="R">Reject</button>
          <button id="undo" class="undo" title="U" disabled>Undo</button>
        </nav>
        """#

    private static let script = #"""
        <script>
        "use strict";
        const query = new URLSearchParams(location.search);
        const token = query.get("token") || "";
        const filterNames = ["photographer", "camera", "stars", "selected", "state"];
        const headers = token ? { "Authorization": "Bearer " + token } : {};
        const withToken = (path) => token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
        const $ = (id) => document.getElementById(id);
        const page = 60;
        let shown = page, version = null, photos = [], total = 0, focus = 0, lastDecided = [], pinned = null, firstScreen = null;
        const selected = new Set();
        const cards = new Map();

        function say(text) {
          $("message").textContent = text || "";
          $("message").classList.toggle("shown", !!text);
        }

        function factsOf(photo) {
          const who = [photo.photographer && "by " + photo.photographer, photo.camera].filter(Boolean).join(", ");
          return (who ? who + " · " : "") + new Date(photo.capturedAt).toLocaleTimeString() + " · "
            + (photo.state === "undecided" ? "held for " : photo.state + " for ") + photo.heldFor.join(", ")
            + (photo.rating > 0 ? " · " + "★".repeat(photo.rating) : "") + (photo.protected ? " · 🔒 protected" : "");
        }

        function card(photo) {
          let node = cards.get(photo.id);
          if (!node) {
            node = document.createElement("div");
            node.className = "photo";
            node.tabIndex = -1;
            node.dataset.id = photo.id;
            const img = document.createElement("img");
            img.loading = "lazy";
            img.alt = photo.name;
            img.src = withToken("review/thumb/" + photo.id + ".jpg");
            img.onload = thumbLoaded;
            // Once more after a moment (relay answers 503 when newer pictures went first), then a placeholder.
            img.onerror = () => {
              if (!img.dataset.retried) {
                img.dataset.retried = "1";
                setTimeout(() => { img.src = withToken("review/thumb/" + photo.id + ".jpg?again=1"); }, 1500);
                return;
              }
              img.replaceWith(Object.assign(document.createElement("div"), { className: "placeholder" }));
              thumbLoaded();
            };
            const check = Object.assign(document.createElement("div"), { className: "check", title: "select" });
            const state = Object.assign(document.createElement("div"), { className: "state" });
            const name = Object.assign(document.createElement("div"), { className: "name" });
            const facts = Object.assign(document.createElement("div"), { className: "facts" });
            const words = Object.assign(document.createElement("div"), { className: "words" });
            node.append(img, check, state, name, facts, words);
            check.addEventListener("click", (event) => { event.stopPropagation(); toggle(photo.id); });
            node.addEventListener("click", () => {
              const index = photos.findIndex((p) => p.id === photo.id);
              focusOn(index);
              openLoupe(index);
            });
            cards.set(photo.id, node);
          }
          node.querySelector(".name").textContent = photo.name;
          node.querySelector(".facts").textContent = factsOf(photo);
          node.querySelector(".words").textContent = [photo.title, photo.caption].filter(Boolean).join(" — ");
          const state = node.querySelector(".state");
          state.className = "state " + photo.state;
          state.textContent = photo.state === "undecided" ? "" : photo.state;
          state.hidden = photo.state === "undecided";
          return node;
        }

        // The first screen of thumbnails, timed for the benchmark ("thumbs-first").
        function thumbLoaded() {
          if (!firstScreen) return;
          firstScreen.left -= 1;
          if (firstScreen.left === 0) { performance.mark("thumbs-first"); firstScreen = null; }
        }

        function render() {
          const ids = new Set(photos.map((p) => p.id));
          for (const id of [...selected]) if (!ids.has(id)) selected.delete(id);
          for (const id of [...cards.keys()]) if (!ids.has(id)) cards.delete(id);
          const first = cards.size === 0;
          $("grid").replaceChildren(...photos.map(card));
          for (const photo of photos) cards.get(photo.id).classList.toggle("selected", selected.has(photo.id));
          focus = Math.min(focus, Math.max(0, photos.length - 1));
          photos.forEach((p, i) => cards.get(p.id).classList.toggle("focused", i === focus));
          $("count").textContent = total + " " + (filter("state") || "undecided").replace("undecided", "held");
          $("empty").hidden = total > 0;
          $("more").hidden = photos.length >= total;
          $("undo").disabled = lastDecided.length === 0;
          if (first && photos.length) {
            const visible = [...$("grid").children].filter((n) => n.getBoundingClientRect().top < innerHeight);
            firstScreen = { left: visible.length };
          }
        }

        const filter = (name) => query.get(name) || "";

        // One link per choice with its count; the filter lives in the address, so that a second
        // editor can open "Anna's photos" on another phone.
        function filters(counts) {
          const link = (name, value, text) => {
            const target = new URLSearchParams(query);
            if (value) target.set(name, value); else target.delete(name);
            return Object.assign(document.createElement("a"), { href: "?" + target, textContent: text, className: filter(name) === value ? "on" : "" });
          };
          const states = counts.states || {};
          const chips = ["undecided", "approved", "rejected"].map((s) => link("state", s === "undecided" ? "" : s, s + " " + (states[s] || 0)));
          const facet = (name, values, label) => {
            const keys = Object.keys(values || {}).sort();
            if (!keys.length && !filter(name)) return [];
            return [Object.assign(document.createElement("span"), { className: "gap" }), link(name, "", label),
              ...keys.map((k) => link(name, k, (name === "stars" ? "★".repeat(+k) + "+" : k) + " " + values[k]))];
          };
          const picked = counts.selected ? [link("selected", filter("selected") ? "" : "1", "selected " + counts.selected)] : [];
          $("filters").replaceChildren(...chips, ...picked, ...facet("photographer", counts.photographers, "everyone"),
            ...facet("camera", counts.cameras, "every camera"), ...facet("stars", counts.stars, "any stars"));
        }

        function toggle(id) {
          if (selected.has(id)) selected.delete(id); else selected.add(id);
          render();
        }

        function focusOn(index) {
          if (index < 0 || index >= photos.length) return;
          focus = index;
          render();
          cards.get(photos[focus].id).scrollIntoView({ block: "nearest" });
        }

        async function load(force) {
          try {
            const since = force || version === null ? "" : "&since=" + version;
            const only = filterNames.filter(filter).map((n) => "&" + n + "=" + encodeURIComponent(filter(n))).join("");
            const response = await fetch(withToken("review.json?offset=0&limit=" + shown + since + only), { headers, cache: "no-store" });
            const answer = await response.json();
            if (!response.ok) throw new Error(answer.error || "HTTP " + response.status);
            if (!answer.unchanged) {
              version = answer.version;
              photos = answer.photos;
              total = answer.total;
              pinned = answer.pinned || null;
              filters(answer.counts || {});
              render();
              loupeListChanged();
            }
            $("updated").textContent = "· " + new Date().toLocaleTimeString();
            if ($("message").dataset.kind === "connection") { say(""); delete $("message").dataset.kind; }
          } catch (error) {
            say("Not connected to relay: " + error.message + ". Decisions cannot be made until it answers.");
            $("message").dataset.kind = "connection";
          }
        }

        // Returns the ids the decision changed; says why when it changed nothing.
        async function decide(decision, ids) {
          if (ids.length === 0) { say("Tap a photo first."); return []; }
          let recorded = [];
          try {
            const response = await fetch(withToken("review/decide"), {
              method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers),
              body: JSON.stringify({ ids, decision }),
            });
            const answer = await response.json();
            if (answer.error) say(answer.error); else say("");
            recorded = answer.recorded || [];
            if (decision !== "undo" && recorded.length) lastDecided = recorded;
            if (decision === "undo") lastDecided = [];
            for (const id of recorded) selected.delete(id);
          } catch (error) {
            say("The decision did not reach relay: " + error.message + ". Try again.");
          }
          await load(true);
          return recorded;
        }

        const chosen = () => selected.size ? [...selected] : (photos[focus] ? [photos[focus].id] : []);
        $("approve").onclick = () => decide("approve", chosen());
        $("reject").onclick = () => decide("reject", chosen());
        $("undo").onclick = () => decide("undo", lastDecided);
        $("more").onclick = () => { shown += page; load(true); };

        document.addEventListener("keydown", (event) => {
          if (event.ctrlKey || event.metaKey || event.altKey || loupeOpen()) return;
          const columns = Math.max(1, Math.round($("grid").clientWidth / (cards.get(photos[0]?.id)?.offsetWidth || 1)));
          switch (event.key) {
            case "ArrowRight": focusOn(focus + 1); break;
            case "ArrowLeft": focusOn(focus - 1); break;
            case "ArrowDown": focusOn(focus + columns); break;
            case "ArrowUp": focusOn(focus - columns); break;
            case " ": if (photos[focus]) toggle(photos[focus].id); break;
            case "Enter": openLoupe(focus); break;
            case "a": case "A": decide("approve", chosen()); break;
            case "r": case "R": decide("reject", chosen()); break;
            case "u": case "U": if (lastDecided.length) decide("undo", lastDecided); break;
            default: return;
          }
          event.preventDefault();
        });

        async function poll() {
          await load(false);
          setTimeout(poll, 800);
        }
        </script>
        """#

    private static let end = #"""
        <script>poll();</script>
        </body>
        </html>
        """#
}
