// The login page: posts the name and password, then goes to the page asked for.
'use strict';

(function () {
  const { $, api } = Console;
  // Only a path of this site: never another origin.
  function next() {
    const n = new URLSearchParams(location.search).get('next') || '';
    return /^\/[^/\\]/.test(n) || n === '/' ? n : './';
  }
  // A page whose session expired says so: the screen did not log itself out.
  if (new URLSearchParams(location.search).get('why') === 'expired') {
    $('why').textContent = 'Your session has ended: it expired after a time without use, or was closed. Log in again to go on.';
    $('why').hidden = false;
  }
  $('login').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('error').textContent = '';
    $('submit').disabled = true;
    try {
      const r = await api('POST', '/api/login', { user: $('user').value, password: $('password').value });
      if (r.status === 200) {
        location.replace(next());
        return;
      }
      $('error').textContent = (r.body && r.body.error) || `Refused (${r.status})`;
      $('password').value = '';
    } catch (err) {
      $('error').textContent = 'The console cannot be reached.';
    } finally {
      $('submit').disabled = false;
    }
  });
})();
