"""``{% demo_floor_banner %}``: on the demo's database, one line saying whether the background
player (``manage.py simulate_floor``) is playing, read from its heartbeat (``demo.heartbeat``).
Nothing at all where no player ever ran."""

from django import template

from demo.heartbeat import player_status

register = template.Library()


@register.inclusion_tag("demo/floor_banner.html")
def demo_floor_banner():
    return {"player": player_status()}
