// Chats: a chat's page shows messages and read receipts as they come, sends from the composer
// without reloading, and is drawn again when a meet-up in it changes or the chat closes.
var list = document.getElementById('messages');
if (list) {
  var chatID = list.dataset.chat;
  var composer = document.getElementById('message-form');
  var csrf = document.querySelector('input[name=_csrf]');
  var unreadMessage = null;
  // Reads the chat up to a message of the other member's, once this page is in sight;
  // the answer brings the counts that reading changed.
  var read = function (messageID) {
    if (!csrf || document.visibilityState !== 'visible') { unreadMessage = messageID; return; }
    unreadMessage = null;
    var body = new URLSearchParams();
    body.set('_csrf', csrf.value); body.set('messageId', messageID);
    fetch(list.dataset.read, { method: 'POST', body: body, credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (counts) {
        if (counts) { Pawpack.setCount('bell-count', counts.unreadNotifications); Pawpack.setCount('chats-count', counts.unreadChats); }
      })
      .catch(function () {});
  };
  document.addEventListener('visibilitychange', function () { if (unreadMessage) read(unreadMessage); });
  var showSeen = function (position) {
    var mine = list.querySelectorAll('.message.mine'), seen = document.getElementById('seen');
    var last = mine[mine.length - 1];
    if (seen && last) seen.hidden = Number(last.dataset.position) > position;
  };
  var typing = function () {
    var text = composer && composer.querySelector('textarea');
    return text && text.value.trim() !== '';
  };
  Pawpack.on('message', function (message) {
    if (message.chatId !== chatID || document.getElementById('m-' + message.id)) return;
    var empty = document.getElementById('messages-empty');
    if (empty) empty.remove();
    var item = document.createElement('li');
    item.className = 'message ' + (message.fromMe ? 'mine' : 'theirs');
    item.id = 'm-' + message.id;
    item.dataset.position = message.position;
    if (message.text) { var text = document.createElement('p'); text.textContent = message.text; item.appendChild(text); }
    if (message.photo) {
      var photo = document.createElement('img');
      photo.src = new URL(message.photo.url).pathname; photo.alt = 'Photo'; photo.className = 'message-photo';
      item.appendChild(photo);
    }
    var time = document.createElement('time');
    time.setAttribute('datetime', message.createdAt); time.dataset.style = 'time';
    item.appendChild(time);
    Pawpack.localize(item);
    list.appendChild(item);
    item.scrollIntoView({ block: 'end' });
    if (message.fromMe) { showSeen(0); return; }
    read(message.id);
  });
  Pawpack.on('read', function (data) { if (data.chatId === chatID && !data.byMe) showSeen(data.position); });
  // A meet-up the other owner changed, or the chat closed: the page is drawn again (not while
  // something is typed, nor while this page is already going elsewhere).
  var redraw = function (data, event) {
    if (event.type === 'meetup' && data.changedByMe) return;
    if ((data.chatId === chatID || event.type === 'resync') && !typing() && !Pawpack.leaving) window.location.reload();
  };
  Pawpack.on('meetup', redraw);
  Pawpack.on('chat_closed', redraw);
  Pawpack.on('resync', redraw);
  if (composer) {
    var field = composer.querySelector('textarea');
    composer.addEventListener('submit', function (event) {
      if (!Pawpack.socket || Pawpack.socket.readyState !== 1) return;
      event.preventDefault();
      if (!field.value.trim()) return;
      var button = composer.querySelector('button[type=submit]');
      button.disabled = true;
      fetch(composer.action, { method: 'POST', body: new URLSearchParams(new FormData(composer)), credentials: 'same-origin',
                               headers: { 'Accept': 'application/json' } })
        .then(function (response) {
          if (!response.ok) throw new Error(String(response.status));
          field.value = '';
          composer.querySelector('[name=id]').value = Pawpack.newID();
        })
        .catch(function () { composer.submit(); })
        .then(function () { button.disabled = false; field.focus(); });
    });
    field.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); composer.requestSubmit(); }
    });
    var lastMessage = list.lastElementChild;
    if (lastMessage) lastMessage.scrollIntoView({ block: 'end' });
  }
}

// The chat list follows its chats: a message, a read or a closed chat draws it again.
if (document.getElementById('chat-list') && !document.getElementById('messages')) {
  ['message', 'read', 'chat_closed', 'match'].forEach(function (type) {
    Pawpack.on(type, Pawpack.redraw);
  });
}

