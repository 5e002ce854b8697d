// Copies the value of the field a "Copy" button names; without script the field can still be selected and copied.
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-copy]')
  if (!button) return
  const field = document.getElementById(button.dataset.copy)
  if (!field) return
  navigator.clipboard.writeText(field.value).then(
    () => {
      button.textContent = 'Copied'
    },
    () => field.select(),
  )
})
// "/" focuses the search, as in most consoles, unless one is typing.
document.addEventListener('keydown', (event) => {
  if (event.key !== '/' || ['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement?.tagName)) return
  const search = document.getElementById('q')
  if (search) {
    event.preventDefault()
    search.focus()
  }
})
// The tracking page's preview follows the form as one types; without script, saving shows it.
const previewForm = document.querySelector('form[data-preview]')
if (previewForm) {
  const frame = document.getElementById(previewForm.dataset.preview)
  let timer
  previewForm.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      if (!frame) return
      const fields = new URLSearchParams(new FormData(previewForm))
      fields.delete('_csrf')
      frame.src = `${frame.dataset.base}?${fields}`
    }, 400)
  })
}
