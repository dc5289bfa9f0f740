/// The venue wall (`/wall`): one self-contained document for a screen or projector, nothing
/// loaded from the internet (the venue's may be down). Full screen, black, each photo whole
/// (a portrait one fitted, never cropped), the newest photo that went live shown as soon as it
/// is made (it asks `wall.json?since=` every second), otherwise the latest photos in turn,
/// `seconds` each, crossfading; a photo the desk pinned alone, without turning, until it is
/// unpinned. The event's logo top left, the guests' link as a QR code bottom right, and with
/// `credit` who shot the photo (and its caption) over the photo's own bottom-left corner.
/// Names and captions are set with `textContent`.
enum WallPageHTML {
    static let document = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>relay · wall</title>
        <style>
          html, body { margin: 0; height: 100%; background: #000; overflow: hidden; cursor: none; }
          .slide { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; opacity: 0; transition: opacity 1s; }
          .slide.shown { opacity: 1; }
          #logo { position: absolute; left: 2vmin; top: 2vmin; max-width: 14vmin; max-height: 14vmin; object-fit: contain; }
          #qr { position: absolute; right: 2vmin; bottom: 2vmin; width: 18vmin; background: #fff; padding: 1vmin; border-radius: 1vmin; }
          #qr img { width: 100%; display: block; }
          #qr div { font: 1.6vmin/1.2 system-ui, sans-serif; color: #000; text-align: center; margin-top: .5vmin; overflow-wrap: anywhere; }
          #credit { position: absolute; margin: 0 0 2vmin 2vmin; padding: .8vmin 1.4vmin; box-sizing: border-box;
                    background: rgba(0, 0, 0, .55); color: #fff; border-radius: .8vmin; font: 2.4vmin/1.3 system-ui, sans-serif;
                    overflow-wrap: anywhere; transition: opacity 1s; }
          #credit .caption { font-size: 2vmin; opacity: .9; }
          #waiting { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
                     font: 4vmin system-ui, sans-serif; color: #777; }
          [hidden] { display: none !important; }
        </style>
        </head>
        <body>
        <div id="waiting">The first photos appear here in a moment.</div>
        <img class="slide" id="a" alt="">
        <img class="slide" id="b" alt="">
        <div id="credit" hidden><div class="who"></div><div class="caption"></div></div>
        <img id="logo" hidden alt="">
        <div id="qr" hidden><img alt="QR code of the gallery"><div></div></div>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const withToken = (path) => path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
        const $ = (id) => document.getElementById(id);
        let version = null, pictures = [], index = 0, front = $("a"), back = $("b"), lastChange = 0, newest = null;
        let seconds = 8, credit = false, pinned = null;

        // Over the bottom-left corner of the photo itself, wherever object-fit put it.
        function placeCredit() {
          const image = front, box = $("credit");
          if (!image.naturalWidth) return;
          const scale = Math.min(innerWidth / image.naturalWidth, innerHeight / image.naturalHeight);
          const width = image.naturalWidth * scale, height = image.naturalHeight * scale;
          box.style.left = (innerWidth - width) / 2 + "px";
          box.style.bottom = (innerHeight - height) / 2 + "px";
          box.style.maxWidth = "min(calc(" + width + "px - 4vmin), 62vw)";
        }

        function describe(picture) {
          const box = $("credit");
          box.querySelector(".who").textContent = picture.photographer ? "Photo: " + picture.photographer : "";
          box.querySelector(".caption").textContent = picture.caption || "";
          box.querySelector(".who").hidden = !picture.photographer;
          box.querySelector(".caption").hidden = !picture.caption;
          box.hidden = !credit || !(picture.photographer || picture.caption);
          placeCredit();
        }

        function show(picture) {
          back.onload = () => {
            // The first picture (nothing on the screen to fade from) is there at once.
            back.style.transition = front.classList.contains("shown") ? "" : "none";
            back.classList.add("shown");
            front.classList.remove("shown");
            [front, back] = [back, front];
            describe(picture);
          };
          back.alt = picture.name;
          back.src = withToken("wall/photo/" + picture.id + ".jpg");
          lastChange = Date.now();
          $("waiting").hidden = true;
        }

        async function poll() {
          try {
            const since = version === null ? "" : "?since=" + version;
            const response = await fetch(withToken("wall.json" + since), { cache: "no-store" });
            const answer = await response.json();
            if (!answer.unchanged) {
              version = answer.version;
              pictures = answer.pictures;
              seconds = answer.seconds || 8;
              credit = answer.credit === true;
              if (answer.guestLink && $("qr").hidden) {
                $("qr").querySelector("img").src = withToken("wall/qr.svg");
                $("qr").querySelector("div").textContent = answer.guestLink;
                $("qr").hidden = false;
              }
              if (answer.logo && $("logo").hidden) {
                $("logo").src = withToken("wall/logo");
                $("logo").hidden = false;
              }
              const pin = answer.pinned ? pictures.find((picture) => picture.id === answer.pinned) : null;
              if (pin) {
                if (pinned !== pin.id) show(pin);
                pinned = pin.id;
              } else if (pictures.length && (pictures[0].id !== newest || pinned !== null)) {
                pinned = null;
                newest = pictures[0].id;
                index = 0;
                show(pictures[0]);
              } else if (!pictures.length && pinned !== null) {
                // Unpinned, and nothing went live yet: back to waiting.
                pinned = newest = null;
                front.classList.remove("shown");
                $("credit").hidden = true;
                $("waiting").hidden = false;
              } else {
                pinned = null;
              }
            }
          } catch (error) {
            // The wall keeps showing what it has until relay answers again.
          }
          const turns = pinned === null && pictures.length > 1;
          if (turns && Date.now() - lastChange >= seconds * 1000) {
            index = (index + 1) % pictures.length;
            show(pictures[index]);
          }
          // Every second, and on time for the next turn.
          setTimeout(poll, turns ? Math.max(20, Math.min(1000, lastChange + seconds * 1000 - Date.now())) : 1000);
        }
        addEventListener("resize", placeCredit);
        poll();
        </script>
        </body>
        </html>
        """#
}
