/// The only script: a preview of a chosen photo before upload. Pages work without it.
enum Script {
    static let js = """
    document.addEventListener('change', function (event) {
      var input = event.target;
      if (!input.matches || !input.matches('input[type=file][data-preview]')) return;
      var preview = document.getElementById(input.dataset.preview);
      if (!preview) return;
      var file = input.files && input.files[0];
      if (preview.dataset.url) URL.revokeObjectURL(preview.dataset.url);
      if (file) {
        preview.dataset.url = URL.createObjectURL(file);
        preview.src = preview.dataset.url;
      } else {
        preview.removeAttribute('src');
      }
    });
    // Swipe the deck card left (pass) or right (like): the same forms the buttons submit.
    document.addEventListener('DOMContentLoaded', function () {
      var card = document.getElementById('deck-card');
      if (!card) return;
      var startX = null;
      card.addEventListener('touchstart', function (e) { startX = e.touches[0].clientX; }, { passive: true });
      card.addEventListener('touchend', function (e) {
        if (startX === null) return;
        var dx = e.changedTouches[0].clientX - startX;
        startX = null;
        if (Math.abs(dx) < 80) return;
        var form = card.querySelector('form.swipe-form[data-decision="' + (dx > 0 ? 'like' : 'pass') + '"]');
        if (form) form.submit();
      });
    });
    // "Use my current location" fills the location form when the browser can tell.
    document.addEventListener('DOMContentLoaded', function () {
      var button = document.getElementById('locate-button');
      if (!button || !navigator.geolocation) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        navigator.geolocation.getCurrentPosition(function (position) {
          document.getElementById('latitude').value = position.coords.latitude.toFixed(5);
          document.getElementById('longitude').value = position.coords.longitude.toFixed(5);
        });
      });
    });
    """
}
