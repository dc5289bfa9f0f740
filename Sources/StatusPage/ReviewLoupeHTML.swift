/// The editor's page's loupe (issue 50): one photo full screen, fitted, in a picture made for
/// this screen (`review/view/ID.jpg?w=&dpr=`, the next one fetched ahead); swipe or ←/→ steps
/// through the photos listed; a double tap or Z shows a crop of the original at 100 % around
/// that point (`review/crop/ID.jpg`, one photo pixel per device pixel), which a drag moves
/// about the photo (a swipe steps only while not zoomed); A, R, U decide and move
/// on; P pins the photo to the venue wall; the caption and title are written under the photo and
/// saved (`review/caption`) with Save, Ctrl+Enter, or on leaving the photo, so nothing written is
/// lost by stepping on. Marks `loupe-open`, `loupe-shown`, `crop-asked` and `crop-shown` time it.
enum ReviewLoupeHTML {
    static let style = #"""
          #loupe { position: fixed; inset: 0; z-index: 5; background: #000; display: flex; flex-direction: column; }
          #loupe .bar { display: flex; gap: 8px; align-items: center; padding: 6px 8px; }
          #loupe .bar > div { flex: 1; min-width: 0; }
          #l-close { font-size: 22px; background: #333; color: #fff; border: 0; border-radius: 8px; width: 44px; height: 44px; flex: none; }
          #loupe-name { font-weight: 700; font-size: 15px; overflow-wrap: anywhere; }
          #loupe-facts { font-size: 13px; color: #bbb; }
          #loupe-pos { font-size: 13px; color: #888; flex: none; }
          #loupe-stage { position: relative; flex: 1; min-height: 0; overflow: hidden; touch-action: none; cursor: zoom-in; }
          #loupe-stage.zoomed { cursor: zoom-out; }
          #loupe-img { width: 100%; height: 100%; object-fit: contain; display: block; }
          #loupe-stage.zoomed #loupe-img { visibility: hidden; }
          #loupe-crop { position: absolute; left: 50%; top: 50%; transform: translate(-50%, -50%); max-width: none; max-height: none; }
          #loupe-wait { position: absolute; left: 0; right: 0; bottom: 8px; text-align: center; color: #aaa; font-size: 14px; }
          #loupe-words { display: flex; flex-direction: column; gap: 6px; padding: 6px 8px; background: #111; margin: 0; }
          #loupe-words input, #loupe-words textarea { font: 16px/1.3 system-ui, sans-serif; background: #222; color: #eee;
                                                       border: 1px solid #444; border-radius: 8px; padding: 6px 8px; width: 100%; }
          #loupe-words .row { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
          #caption-state { font-size: 13px; color: #aaa; }
          #caption-save { font-size: 15px; padding: 8px 12px; border: 0; border-radius: 8px; background: #6aa8ff; color: #000;
                          font-weight: 700; flex: none; }
          #loupe .decide { display: grid; grid-template-columns: 1fr 1fr 1fr 1fr; gap: 8px; padding: 8px; }
          #l-pin { background: #ffd24a; }
          #l-pin.on { background: #fff; }
        """#

    static let markup = #"""
        <div id="loupe" hidden>
          <div class="bar">
            <button id="l-close" title="Escape">✕</button>
            <div><div id="loupe-name"></div><div id="loupe-facts"></div></div>
            <span id="loupe-pos"></span>
          </div>
          <div id="loupe-stage">
            <img id="loupe-img" alt="">
            <img id="loupe-crop" alt="" hidden>
            <div id="loupe-wait" hidden>loading…</div>
          </div>
          <form id="loupe-words">
            <input id="title" placeholder="Title" maxlength="256" autocomplete="off">
            <textarea id="caption" rows="2" placeholder="Caption"></textarea>
            <div class="row"><span id="caption-state"></span><button id="caption-save" type="submit">Save caption</button></div>
          </form>
          <div class="decide">
            <button id="l-approve" class="approve" title="A">Approve</button>
            <button id="l-reject" class="reject" title="R">Reject</button>
            <button id="l-undo" class="undo" title="U">Undo</button>
            <button id="l-pin" title="P">Pin</button>
          </div>
        </div>
        """#

    static let script = #"""
        <script>
        "use strict";
        let loupeId = null, loupeAfter = null, zoomed = false, lastTap = 0, touchStart = null, pointer = null;
        let wordsFor = null, wordsDirty = false;
        const ahead = new Map();
        const loupeOpen = () => loupeId !== null;
        const stage = $("loupe-stage");

        function viewURL(id) {
          const box = stage.getBoundingClientRect();
          const edge = Math.round(Math.max(box.width, box.height, 320));
          return withToken("review/view/" + id + ".jpg?w=" + edge + "&dpr=" + Math.min(window.devicePixelRatio || 1, 2));
        }

        function showFacts(photo) {
          const index = photos.findIndex((p) => p.id === photo.id);
          $("loupe-name").textContent = photo.name;
          $("loupe-facts").textContent = factsOf(photo) + (pinned === photo.id ? " · 📌 on the wall" : "");
          $("loupe-pos").textContent = (index + 1) + " / " + total;
          $("l-pin").textContent = pinned === photo.id ? "Unpin" : "Pin";
          $("l-pin").classList.toggle("on", pinned === photo.id);
          $("l-undo").disabled = lastDecided.length === 0;
        }

        function fillWords(photo) {
          // The feed's next look at the same photo keeps what its save said.
          const same = wordsFor === photo.id;
          wordsFor = photo.id;
          wordsDirty = false;
          $("caption").value = photo.caption || "";
          $("title").value = photo.title || "";
          if (!same) $("caption-state").textContent = photo.caption || photo.title ? "saved" : "";
        }

        function openLoupe(index) {
          const photo = photos[index];
          if (!photo) return;
          performance.mark("loupe-open");
          if (wordsDirty) saveWords();
          $("loupe").hidden = false;
          loupeId = photo.id;
          document.body.dataset.loupe = photo.id;
          unzoom();
          const img = $("loupe-img");
          const url = viewURL(photo.id);
          delete img.dataset.shown;
          img.alt = photo.name;
          img.onload = () => {
            if (loupeId !== photo.id) return;
            img.dataset.shown = photo.id;
            performance.mark("loupe-shown");
            $("loupe-wait").hidden = true;
            fetchAhead(photos.findIndex((p) => p.id === photo.id));
          };
          img.onerror = () => { if (loupeId === photo.id) $("loupe-wait").textContent = "this photo cannot be shown (it left the spool?)"; };
          $("loupe-wait").textContent = "loading…";
          $("loupe-wait").hidden = false;
          if (img.src === new URL(url, location.href).href && img.complete) img.onload(); else img.src = url;
          showFacts(photo);
          fillWords(photo);
          focus = index;
        }

        // The neighbours' pictures, once this one is shown: stepping on finds them made and cached.
        function fetchAhead(index) {
          for (const neighbour of [photos[index + 1], photos[index - 1]]) {
            if (!neighbour || ahead.has(neighbour.id)) continue;
            const picture = new Image();
            picture.src = viewURL(neighbour.id);
            ahead.set(neighbour.id, picture);
            if (ahead.size > 8) ahead.delete(ahead.keys().next().value);
          }
        }

        async function closeLoupe() {
          if (wordsDirty) await saveWords();
          const index = photos.findIndex((p) => p.id === loupeId);
          $("loupe").hidden = true;
          loupeId = null;
          delete document.body.dataset.loupe;
          unzoom();
          render();
          if (index >= 0) focusOn(index);
        }

        async function step(delta) {
          let index = photos.findIndex((p) => p.id === loupeId) + delta;
          if (index >= photos.length && photos.length < total) {
            shown += page;
            await load(true);
          }
          if (index < 0 || index >= photos.length) return;
          openLoupe(index);
        }

        // After each list: another editor's decision (or this one's) may have taken the photo away.
        function loupeListChanged() {
          if (!loupeOpen()) return;
          const next = loupeAfter ? photos.findIndex((p) => p.id === loupeAfter) : -1;
          loupeAfter = null;
          if (next >= 0 && photos[next].id !== loupeId) return openLoupe(next);
          const here = photos.findIndex((p) => p.id === loupeId);
          if (here >= 0) {
            showFacts(photos[here]);
            if (!wordsDirty && document.activeElement !== $("caption") && document.activeElement !== $("title")) fillWords(photos[here]);
            return;
          }
          if (photos.length === 0) return closeLoupe();
          openLoupe(Math.min(focus, photos.length - 1));
        }

        async function loupeDecide(kind) {
          if (wordsDirty) await saveWords();
          if (kind === "undo") {
            const back = lastDecided[0];
            loupeAfter = back || null;
            await decide("undo", lastDecided);
            return;
          }
          const index = photos.findIndex((p) => p.id === loupeId);
          const after = photos[index + 1]?.id || photos[index - 1]?.id || null;
          loupeAfter = after;
          const recorded = await decide(kind, [loupeId]);
          if (recorded.length && after && photos.some((p) => p.id === after) && loupeId !== after) {
            openLoupe(photos.findIndex((p) => p.id === after));
          }
        }

        async function pin() {
          const id = loupeId;
          try {
            const response = await fetch(withToken("review/pin"), {
              method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers),
              body: JSON.stringify({ id, pinned: pinned !== id }),
            });
            const answer = await response.json();
            if (!response.ok) return say(answer.error || "HTTP " + response.status);
            pinned = answer.pinned || null;
            const photo = photos.find((p) => p.id === id);
            if (photo && loupeId === id) showFacts(photo);
          } catch (error) {
            say("The wall did not answer: " + error.message);
          }
        }

        async function saveWords() {
          const id = wordsFor;
          if (!id) return;
          const body = { id, caption: $("caption").value, title: $("title").value };
          const here = () => wordsFor === id;
          if (here()) $("caption-state").textContent = "saving…";
          try {
            const response = await fetch(withToken("review/caption"), {
              method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers), body: JSON.stringify(body),
            });
            const answer = await response.json();
            if (!response.ok) throw new Error(answer.error || "HTTP " + response.status);
            const photo = photos.find((p) => p.id === id);
            if (photo) { photo.caption = answer.caption.caption || null; photo.title = answer.caption.title || null; }
            if (here()) { wordsDirty = false; $("caption-state").textContent = "saved · " + answer.sentence; }
          } catch (error) {
            const text = "The caption was not saved: " + error.message;
            if (here()) $("caption-state").textContent = text; else say(text);
          }
        }

        function unzoom() {
          zoomed = false;
          cropAt = null;
          stage.classList.remove("zoomed");
          $("loupe-crop").hidden = true;
          delete $("loupe-crop").dataset.shown;
        }

        // The point (x, y) on the screen as fractions of the upright photo, from the fitted picture.
        function fractionAt(x, y) {
          const img = $("loupe-img"), box = img.getBoundingClientRect();
          if (!img.naturalWidth) return [0.5, 0.5];
          const scale = Math.min(box.width / img.naturalWidth, box.height / img.naturalHeight);
          const width = img.naturalWidth * scale, height = img.naturalHeight * scale;
          const left = box.left + (box.width - width) / 2, top = box.top + (box.height - height) / 2;
          const clamp = (v) => Math.min(1, Math.max(0, v));
          return [clamp((x - left) / width), clamp((y - top) / height)];
        }

        function toggleZoom(x, y) {
          if (zoomed) return unzoom();
          zoomed = true;
          stage.classList.add("zoomed");
          showCrop(...(x === undefined ? [0.5, 0.5] : fractionAt(x, y)));
        }

        // The 100 % view centred on (fx, fy), fractions of the upright photo. Fetched rather than
        // set as a source, to read where the crop lies in the photo: a drag then pans from there.
        let cropAt = null;
        async function showCrop(fx, fy) {
          const id = loupeId, ratio = window.devicePixelRatio || 1, box = stage.getBoundingClientRect();
          const crop = $("loupe-crop");
          performance.mark("crop-asked");
          $("loupe-wait").textContent = "100 %…";
          $("loupe-wait").hidden = false;
          try {
            const response = await fetch(withToken("review/crop/" + id + ".jpg?x=" + fx.toFixed(4) + "&y=" + fy.toFixed(4)
              + "&w=" + Math.round(box.width * ratio) + "&h=" + Math.round(box.height * ratio)), { headers });
            if (!response.ok) throw new Error((await response.json()).error || "HTTP " + response.status);
            const number = (name) => +response.headers.get(name);
            const at = { left: number("X-Crop-Left"), top: number("X-Crop-Top"), width: number("X-Crop-Width"),
              height: number("X-Crop-Height"), photoWidth: number("X-Original-Width"), photoHeight: number("X-Original-Height") };
            const url = URL.createObjectURL(await response.blob());
            crop.onload = () => {
              URL.revokeObjectURL(url);
              if (!zoomed || loupeId !== id) return;
              cropAt = at;
              crop.style.width = crop.naturalWidth / ratio + "px";
              crop.style.height = crop.naturalHeight / ratio + "px";
              crop.hidden = false;
              crop.dataset.shown = id;
              crop.dataset.left = at.left;
              crop.dataset.top = at.top;
              performance.mark("crop-shown");
              $("loupe-wait").hidden = true;
            };
            crop.src = url;
          } catch (error) {
            if (loupeId === id) $("loupe-wait").textContent = "the 100 % view cannot be made: " + error.message;
          }
        }

        // A drag on the 100 % view moves it: the photo follows the finger, one photo pixel per device pixel.
        function pan(dx, dy) {
          if (!cropAt || !cropAt.photoWidth) return;
          const ratio = window.devicePixelRatio || 1;
          const x = (cropAt.left + cropAt.width / 2 - dx * ratio) / cropAt.photoWidth;
          const y = (cropAt.top + cropAt.height / 2 - dy * ratio) / cropAt.photoHeight;
          const clamp = (v) => Math.min(1, Math.max(0, v));
          showCrop(clamp(x), clamp(y));
        }

        stage.addEventListener("touchstart", (event) => {
          if (event.touches.length === 1) touchStart = { x: event.touches[0].clientX, y: event.touches[0].clientY };
        }, { passive: true });
        stage.addEventListener("touchend", (event) => {
          if (!touchStart) return;
          const touch = event.changedTouches[0], dx = touch.clientX - touchStart.x, dy = touch.clientY - touchStart.y;
          touchStart = null;
          if (zoomed && (Math.abs(dx) > 12 || Math.abs(dy) > 12)) {
            lastTap = 0;
            event.preventDefault();
            return pan(dx, dy);
          }
          if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy)) {
            lastTap = 0;
            event.preventDefault();
            return step(dx < 0 ? 1 : -1);
          }
          if (Math.abs(dx) > 12 || Math.abs(dy) > 12) return;
          const now = Date.now();
          if (now - lastTap < 350) {
            lastTap = 0;
            event.preventDefault();
            toggleZoom(touch.clientX, touch.clientY);
          } else {
            lastTap = now;
          }
        });
        stage.addEventListener("dblclick", (event) => toggleZoom(event.clientX, event.clientY));
        stage.addEventListener("mousemove", (event) => { pointer = [event.clientX, event.clientY]; });
        let dragFrom = null;
        stage.addEventListener("mousedown", (event) => { if (zoomed) dragFrom = [event.clientX, event.clientY]; });
        stage.addEventListener("mouseup", (event) => {
          if (!dragFrom) return;
          const [dx, dy] = [event.clientX - dragFrom[0], event.clientY - dragFrom[1]];
          dragFrom = null;
          if (Math.abs(dx) > 4 || Math.abs(dy) > 4) pan(dx, dy);
        });
        stage.addEventListener("mouseleave", () => { pointer = null; });

        $("l-close").onclick = () => closeLoupe();
        $("l-approve").onclick = () => loupeDecide("approve");
        $("l-reject").onclick = () => loupeDecide("reject");
        $("l-undo").onclick = () => loupeDecide("undo");
        $("l-pin").onclick = () => pin();
        $("loupe-words").onsubmit = (event) => { event.preventDefault(); saveWords(); };
        for (const field of [$("caption"), $("title")]) {
          field.addEventListener("input", () => { wordsDirty = true; $("caption-state").textContent = "not saved yet"; });
        }

        document.addEventListener("keydown", (event) => {
          if (!loupeOpen()) return;
          if (event.target.matches("input, textarea")) {
            if (event.key === "Escape") event.target.blur();
            else if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.target.id === "title")) saveWords();
            else return;
            event.preventDefault();
            return;
          }
          if (event.ctrlKey || event.metaKey || event.altKey) return;
          switch (event.key) {
            case "ArrowRight": step(1); break;
            case "ArrowLeft": step(-1); break;
            case "Escape": closeLoupe(); break;
            case "z": case "Z": pointer ? toggleZoom(pointer[0], pointer[1]) : toggleZoom(); break;
            case "a": case "A": loupeDecide("approve"); break;
            case "r": case "R": loupeDecide("reject"); break;
            case "u": case "U": if (lastDecided.length) loupeDecide("undo"); break;
            case "p": case "P": pin(); break;
            case "c": case "C": $("caption").focus(); break;
            default: return;
          }
          event.preventDefault();
        });
        </script>
        """#
}
