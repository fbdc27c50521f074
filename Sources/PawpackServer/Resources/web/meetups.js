// Meet-ups: the proposal form sends the time as the member's own (their offset from UTC on that day).
var meetupForm = document.getElementById('meetup-form');
if (meetupForm) {
  meetupForm.addEventListener('submit', function () {
    var day = meetupForm.querySelector('[name=date]').value, time = meetupForm.querySelector('[name=time]').value;
    var local = new Date(day + 'T' + time);
    document.getElementById('meetup-offset').value = String(isNaN(local) ? new Date().getTimezoneOffset() : local.getTimezoneOffset());
  });
}
