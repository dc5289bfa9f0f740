/// The venue wall (`/wall`): one self-contained document for a screen or projector, nothing
/// loaded from the internet (the venue's may be down). Full screen, black, the newest photo that
/// went live shown as soon as it is made (it asks `wall.json?since=` every second), otherwise the
/// latest photos in turn, eight seconds each, crossfading; the guests' link as a QR code in a
/// corner. Names are set with `textContent`.
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
          #qr { position: absolute; right: 2vmin; bottom: 2vmin; width: 18vmin; background: #fff; padding: 1vmin; border-radius: 1vmin; }
          #qr img { width: 100%; display: block; }
          #qr div { font: 1.6vmin/1.2 system-ui, sans-serif; color: #000; text-align: center; margin-top: .5vmin; overflow-wrap: anywhere; }
          #waiting { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
                     font: 4vmin system-ui, sans-serif; color: #777; }
          [hidden] { display: none !important; }
        </style>
        </head>
        <body>
        <div id="waiting">The first photos appear here in a moment.</div>
        <img class="slide" id="a" alt="">
        <img class="slide" id="b" alt="">
        <div id="qr" hidden><img alt="QR code of the gallery"><div></div></div>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const withToken = (path) => path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
        const $ = (id) => document.getElementById(id);
        let version = null, pictures = [], index = 0, front = $("a"), back = $("b"), lastChange = 0, newest = null;

        function show(picture) {
          back.onload = () => {
            back.classList.add("shown");
            front.classList.remove("shown");
            [front, back] = [back, front];
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
              if (answer.guestLink && $("qr").hidden) {
                $("qr").querySelector("img").src = withToken("wall/qr.svg");
                $("qr").querySelector("div").textContent = answer.guestLink;
                $("qr").hidden = false;
              }
              if (pictures.length && pictures[0].id !== newest) {
                newest = pictures[0].id;
                index = 0;
                show(pictures[0]);
              }
            }
          } catch (error) {
            // The wall keeps showing what it has until relay answers again.
          }
          if (pictures.length > 1 && Date.now() - lastChange > 8000) {
            index = (index + 1) % pictures.length;
            show(pictures[index]);
          }
          setTimeout(poll, 1000);
        }
        poll();
        </script>
        </body>
        </html>
        """#
}
