// The bookmarks page: reads and adds bookmarks through the JSON API. Text goes into the page with
// textContent only, so a bookmark's title can never inject markup.
const API = '/api/v1/bookmarks';
const list = document.querySelector('#bookmarks');
const status = document.querySelector('#status');
const form = document.querySelector('#add');

function show(message, isError = false) {
  status.textContent = message;
  status.classList.toggle('error', isError);
}

function render(bookmarks) {
  list.replaceChildren(
    ...bookmarks.map((bookmark) => {
      const item = document.createElement('li');
      item.dataset.id = bookmark.id;
      const link = document.createElement('a');
      link.href = bookmark.url;
      link.textContent = bookmark.title;
      item.append(link);
      for (const tag of bookmark.tags) {
        const badge = document.createElement('span');
        badge.className = 'tag';
        badge.textContent = tag;
        item.append(badge);
      }
      return item;
    }),
  );
  show(`${bookmarks.length} bookmark${bookmarks.length === 1 ? '' : 's'}`);
}

async function load() {
  const response = await fetch(API, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${API} answered ${response.status}`);
  render(await response.json());
}

async function add(data) {
  const tags = String(data.get('tags') ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  const response = await fetch(API, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ url: data.get('url'), title: data.get('title'), tags }),
  });
  if (response.status === 201) {
    form.reset();
    await load();
    return;
  }
  const problem = await response.json().catch(() => ({}));
  const details = (problem.details ?? []).map((issue) => `${issue.path}: ${issue.message}`);
  show(`Not added: ${[problem.error, ...details].filter(Boolean).join('; ')}`, true);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  // The network or the server may fail before any answer: the page says so, the form keeps
  // what was typed.
  add(new FormData(form)).catch((error) => show(`Not added: ${error.message}`, true));
});

load().catch((error) => show(`Could not load the bookmarks: ${error.message}`, true));
